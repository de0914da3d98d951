#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The package's postinst on a first install: it enables the unit, and where systemd runs it
# (re)starts the service; where it does not (a container, a chroot) it starts nothing and says on
# standard error how to start the agent, since apt-get's output would otherwise suggest it runs.
# deb-systemd-helper, deb-systemd-invoke and systemctl are stand-ins on PATH that log their
# arguments. The branch taken is the host's: /run/systemd/system decides it, as in the script.
#   postinst_test.sh POSTINST
set -uo pipefail
postinst=$(realpath "$1")
work=$(mktemp -d "/tmp/nictune_postinst_$$.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"
for tool in deb-systemd-helper deb-systemd-invoke systemctl; do
  cat >"$work/bin/$tool" <<FAKE
#!/usr/bin/env bash
echo "$tool \$*" >>"$work/calls"
# A first install: the unit was never installed before.
[[ \$1 != debian-installed ]]
FAKE
  chmod +x "$work/bin/$tool"
done

failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

PATH=$work/bin:$PATH sh "$postinst" configure >"$work/out" 2>"$work/err"
rc=$?
[[ $rc -eq 0 ]] || fail "postinst configure exited $rc: $(cat "$work/err")"
grep -qx "deb-systemd-helper enable nictuned.service" "$work/calls" ||
  fail "the unit was not enabled: $(cat "$work/calls")"
[[ ! -s $work/out ]] || fail "postinst printed on standard output: $(cat "$work/out")"
if [[ -d /run/systemd/system ]]; then
  grep -qx "deb-systemd-invoke restart nictuned.service" "$work/calls" ||
    fail "systemd runs, yet the service was not started: $(cat "$work/calls")"
  [[ ! -s $work/err ]] || fail "systemd runs, yet postinst said: $(cat "$work/err")"
else
  grep -q "deb-systemd-invoke" "$work/calls" && fail "no systemd, yet it invoked the service"
  grep -q "systemd is not running" "$work/err" || fail "no word that nothing was started"
  grep -qF "/usr/sbin/nictuned --flagfile=/etc/nictune/nictuned.flags" "$work/err" ||
    fail "no word how to start the agent: $(cat "$work/err")"
fi

echo "postinst: $failures failed"
((failures == 0))
