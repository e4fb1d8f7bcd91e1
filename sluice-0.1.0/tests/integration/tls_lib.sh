# tests/integration/tls_lib.sh - sourced by the tls_*.sh tests after
# tests/lib.sh: makes a throw-away PKI with certtool (GnuTLS) in
# $TESTDIR/pki:
#   ca.pem / ca-key.pem        the CA
#   server.pem / server-key.pem  CN=server.example.net, SAN dNSName
#                                server.example.net and IP 127.0.0.1
#   client.pem / client-key.pem  CN=client1.example.net, SAN dNSName
#                                client1.example.net (the permitted one)
#   rogue.pem / rogue-key.pem    CN=rogue.other.org, signed by the same CA
#                                (valid chain, name not permitted)
#   expired.pem / expired-key.pem CN=old.example.net, expired (valid chain)
# ECDSA keys keep it fast. Threading: plain sequential shell.

CERTTOOL=${CERTTOOL:-$(command -v certtool 2>/dev/null || echo /usr/bin/certtool)}
PKI=$TESTDIR/pki

# _tls_cert NAME CN DNS [EXTRA-TEMPLATE-LINES]: key + certificate signed by the CA
_tls_cert() {
	local name=$1 cn=$2 dns=$3 extra=${4:-}
	"$CERTTOOL" --generate-privkey --key-type=ecdsa --outfile "$PKI/$name-key.pem" \
		>/dev/null 2>&1 || fail "expected certtool to make a key for $name, got an error"
	{
		echo "cn = \"$cn\""
		echo "dns_name = \"$dns\""
		echo "tls_www_client"
		echo "tls_www_server"
		echo "signing_key"
		echo "encryption_key"
		[ -n "$extra" ] && printf '%s\n' "$extra"
		grep -q expiration <<<"$extra" || echo "expiration_days = 30"
	} >"$PKI/$name.tmpl"
	"$CERTTOOL" --generate-certificate --load-privkey "$PKI/$name-key.pem" \
		--load-ca-certificate "$PKI/ca.pem" --load-ca-privkey "$PKI/ca-key.pem" \
		--template "$PKI/$name.tmpl" --outfile "$PKI/$name.pem" >/dev/null 2>&1 ||
		fail "expected certtool to make the certificate $name, got an error"
}

# tls_make_pki: makes everything listed above.
tls_make_pki() {
	[ -x "$CERTTOOL" ] || skip "certtool (gnutls-bin) not found"
	mkdir -p "$PKI"
	"$CERTTOOL" --generate-privkey --key-type=ecdsa --outfile "$PKI/ca-key.pem" >/dev/null 2>&1 ||
		fail "expected certtool to make the CA key, got an error"
	cat >"$PKI/ca.tmpl" <<-T
	cn = "sluice test CA"
	ca
	cert_signing_key
	expiration_days = 30
	T
	"$CERTTOOL" --generate-self-signed --load-privkey "$PKI/ca-key.pem" \
		--template "$PKI/ca.tmpl" --outfile "$PKI/ca.pem" >/dev/null 2>&1 ||
		fail "expected certtool to make the CA, got an error"
	_tls_cert server server.example.net server.example.net 'ip_address = "127.0.0.1"'
	_tls_cert client client1.example.net client1.example.net
	_tls_cert rogue rogue.other.org rogue.other.org
	_tls_cert expired old.example.net old.example.net 'activation_date = "2020-01-01 00:00:00 UTC"
expiration_date = "2021-01-01 00:00:00 UTC"'
}

# tls_fingerprint CERT [ALG]: "SHA1:AA:BB:..." (or SHA256) of CERT, rsyslog's form
tls_fingerprint() {
	local alg=${2:-sha1} hex
	hex=$("$CERTTOOL" --fingerprint --hash="$alg" --infile "$1" 2>/dev/null |
		tr -d ' \n' | tr 'a-f' 'A-F')
	[ -n "$hex" ] || fail "expected a fingerprint of $1, got none"
	printf '%s' "$(tr 'a-z' 'A-Z' <<<"$alg")"
	sed 's/../:&/g' <<<"$hex"
}
