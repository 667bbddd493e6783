#!/usr/bin/env bash
# Tests of the project-local apt sources (scripts/setup.sh apt-sources):
# the machine's own apt configuration, in one-line and deb822 form, decides
# the archive and security URIs; only the suites are the project's. Each
# case builds an apt configuration folder and compares the output with the
# expected lines. Prints "N passed, N failed".
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0

# check NAME EXPECTED: run apt-sources on $work/NAME, compare with EXPECTED
# ("FAIL" expects a non-zero exit with a message).
check() {
	local name=$1 want=$2 got rc
	got=$(APT_ETC=$work/$name bash "$top/scripts/setup.sh" apt-sources 2>"$work/$name.err")
	rc=$?
	if [ "$want" = FAIL ]; then
		if [ "$rc" -ne 0 ] && [ -s "$work/$name.err" ]; then
			echo "PASS $name (refused: $(head -1 "$work/$name.err"))"
			passed=$((passed + 1))
		else
			echo "FAIL $name: expected a refusal, got exit $rc"
			failed=$((failed + 1))
		fi
		return
	fi
	if [ "$rc" -eq 0 ] && [ "$got" = "$want" ]; then
		echo "PASS $name"
		passed=$((passed + 1))
	else
		echo "FAIL $name (exit $rc)"
		diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | sed 's/^/  /'
		failed=$((failed + 1))
	fi
}

# The five project lines for an archive and a security URI and options.
expect() {
	local main=$1 mopt=$2 sec=$3 sopt=$4
	printf 'deb %s%s bookworm main\n' "$mopt" "$main"
	printf 'deb %s%s bookworm-updates main\n' "$mopt" "$main"
	printf 'deb-src %s%s trixie main\n' "$mopt" "$main"
	printf 'deb %s%s bookworm-backports main\n' "$mopt" "$main"
	[ -z "$sec" ] || printf 'deb %s%s bookworm-security main\n' "$sopt" "$sec"
}

# 1. deb822, as Debian 12 installs it, on a mirror.
mkdir -p "$work/deb822/sources.list.d"
cat > "$work/deb822/sources.list.d/debian.sources" <<'S'
Types: deb
# a comment inside a stanza
URIs: http://mirror.example/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://mirror.example/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
S
check deb822 "$(expect http://mirror.example/debian \
	'[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ' \
	http://mirror.example/debian-security \
	'[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ')"

# 2. One-line sources.list behind a caching proxy, with options, comments,
#    a cdrom line; the security archive in a deb822 file with an embedded
#    key (not expressible in one line: left to the trusted keyrings); a
#    disabled stanza and a disabled file that must be ignored.
mkdir -p "$work/oneline/sources.list.d"
cat > "$work/oneline/sources.list" <<'S'
# deb http://commented.example/debian bookworm main
deb cdrom:[Debian GNU/Linux 12]/ bookworm main
deb [arch=amd64 signed-by=/etc/apt/keyrings/site.gpg] http://proxy.example:3142/debian bookworm main contrib # site proxy
deb-src http://proxy.example:3142/debian bookworm main
S
cat > "$work/oneline/sources.list.d/security.sources" <<'S'
Enabled: no
Types: deb
URIs: http://disabled.example/debian
Suites: bookworm

Types: deb deb-src
URIs: http://proxy.example:3142/debian-security
Suites: bookworm-security
Components: main
Signed-By:
 -----BEGIN PGP PUBLIC KEY BLOCK-----
 .
 mQINBA==
 -----END PGP PUBLIC KEY BLOCK-----
S
echo 'deb http://stale.example/debian bookworm main' > "$work/oneline/sources.list.d/old.list.disabled"
check oneline "$(expect http://proxy.example:3142/debian '[signed-by=/etc/apt/keyrings/site.gpg] ' \
	http://proxy.example:3142/debian-security '')"

# 3. Only bookworm-updates names the archive; no security archive at all.
mkdir -p "$work/updates-only"
echo 'deb http://mirror.example/debian bookworm-updates main' > "$work/updates-only/sources.list"
check updates-only "$(expect http://mirror.example/debian '' '' '')"

# 4. Two keyrings in deb822 become one comma-separated signed-by option.
mkdir -p "$work/two-keys/sources.list.d"
cat > "$work/two-keys/sources.list.d/debian.sources" <<'S'
Types: deb
URIs: http://mirror.example/debian
Suites: bookworm
Signed-By: /usr/share/keyrings/a.gpg /usr/share/keyrings/b.gpg
S
check two-keys "$(expect http://mirror.example/debian \
	'[signed-by=/usr/share/keyrings/a.gpg,/usr/share/keyrings/b.gpg] ' '' '')"

# 5. No Debian bookworm archive: refused with a message.
mkdir -p "$work/none/sources.list.d"
echo 'deb http://other.example/ubuntu jammy main' > "$work/none/sources.list"
check none FAIL

# 6. The same configuration twice gives the same lines (idempotent).
first=$(APT_ETC=$work/deb822 bash "$top/scripts/setup.sh" apt-sources)
second=$(APT_ETC=$work/deb822 bash "$top/scripts/setup.sh" apt-sources)
if [ -n "$first" ] && [ "$first" = "$second" ]; then
	echo "PASS idempotent"
	passed=$((passed + 1))
else
	echo "FAIL idempotent"
	failed=$((failed + 1))
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
