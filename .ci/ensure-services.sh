# Sourced by test.sh: installs from Debian's packages the services and tools the tests start
# themselves when they are missing (MariaDB and PostgreSQL servers, Java 17 and Maven for
# Apache Kafka and the Java originals, chromium for the console's browser tests). The tests
# start private servers; nothing here starts a service.
_kc_missing=()
command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || _kc_missing+=(mariadb-server)
command -v mariadb >/dev/null 2>&1 || _kc_missing+=(mariadb-client)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || command -v initdb >/dev/null 2>&1 \
  || _kc_missing+=(postgresql)
command -v java >/dev/null 2>&1 || _kc_missing+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null 2>&1 || _kc_missing+=(maven)
[ -x /usr/bin/chromium ] || _kc_missing+=(chromium)
if [ "${#_kc_missing[@]}" -gt 0 ]; then
  echo "installing from Debian's packages: ${_kc_missing[*]}" >&2
  _kc_sudo=()
  if [ "$(id -u)" -ne 0 ]; then _kc_sudo=(sudo); fi
  "${_kc_sudo[@]}" apt-get update -qq
  # RUNLEVEL=1: invoke-rc.d starts none of the packages' own servers; the tests run
  # private ones on free ports.
  DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 "${_kc_sudo[@]}" apt-get install -y -qq \
    "${_kc_missing[@]}" >/dev/null
fi
unset _kc_missing _kc_sudo
