#!/bin/sh
# Installs everything sluice needs to build and to run its whole test
# suite on Debian 12 (compiler, autotools, libraries, Check, and the
# reference rsyslogd for the differential tests). Run as root (or with
# sudo available). Safe to run again.
set -e
pkgs="build-essential autoconf automake libtool pkg-config flex bison
 libestr-dev libfastjson-dev liblognorm-dev libcurl4-gnutls-dev librdkafka-dev
 libgnutls28-dev libgcrypt20-dev zlib1g-dev libpcre2-dev check
 python3 rsyslog gnutls-bin socat netcat-openbsd procps util-linux
 rsyslog-gnutls clang libclang-rt-14-dev
 kcat rsyslog-kafka openjdk-17-jre-headless maven
 rsyslog-elasticsearch unzip curl
 python3-prometheus-client
 python3-matplotlib
 strace iproute2"
SUDO=
if [ "$(id -u)" != 0 ]; then
	SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $pkgs
