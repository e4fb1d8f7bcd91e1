version=2
# sshd login failures and successes.
rule=sshd,auth_failure: Failed %method:word% for invalid user %user:word% from %src_ip:ipv4% port %src_port:number{"format":"number"}% %protocol:word%
rule=sshd,auth_failure: Failed %method:word% for %user:word% from %src_ip:ipv4% port %src_port:number{"format":"number"}% %protocol:word%
rule=sshd,invalid_user: Invalid user %user:word% from %src_ip:ipv4% port %src_port:number{"format":"number"}%
rule=sshd,invalid_user: Invalid user %user:word% from %src_ip:ipv4%
rule=sshd,auth_success: Accepted %method:word% for %user:word% from %src_ip:ipv4% port %src_port:number{"format":"number"}% %protocol:word%
