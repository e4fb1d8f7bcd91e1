version=2
# Snort IDS alarms as snort writes them to syslog, e.g.
#   [1:1156:13] WEB-MISC apache directory disclosure attempt [Classification: Attempted Denial of Service] [Priority: 2]: {TCP} 10.2.1.99:41337 -> 192.168.1.1:80
# Fields: gid, sid, rev, alarm, classification, priority, transport,
# src_ip, src_port, dst_ip, dst_port (numbers typed as JSON numbers).
type=@port:%port:number{"format":"number"}%

rule=snort,ids: [%gid:number{"format":"number"}%:%sid:number{"format":"number"}%:%rev:number{"format":"number"}%] %alarm:string-to{"extradata":" [Classification: "}% [Classification: %classification:char-to{"extradata":"]"}%] [Priority: %priority:number{"format":"number"}%]: {%transport:char-to{"extradata":"}"}%} %src_ip:ipv4%:%src_port:number{"format":"number"}% -> %dst_ip:ipv4%:%dst_port:number{"format":"number"}%
rule=snort,ids: [%gid:number{"format":"number"}%:%sid:number{"format":"number"}%:%rev:number{"format":"number"}%] %alarm:string-to{"extradata":" [Priority: "}% [Priority: %priority:number{"format":"number"}%]: {%transport:char-to{"extradata":"}"}%} %src_ip:ipv4%:%src_port:number{"format":"number"}% -> %dst_ip:ipv4%:%dst_port:number{"format":"number"}%
