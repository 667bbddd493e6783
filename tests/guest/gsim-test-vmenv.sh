#!/bin/sh
# The guest scripts/vm.sh boots: the RAM it was asked for (gsim.mem= on the
# kernel command line) and the 2 MiB huge pages it asked the kernel to
# reserve (hugepages=), free for user programs and mounted at
# /dev/hugepages. Prints "N passed, N failed".
passed=0
failed=0
check() { # description, command...
	desc=$1
	shift
	if "$@" >/dev/null 2>&1; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: $desc"
	fi
}
cmdarg() { # name: its value on the kernel command line, empty if absent
	for a in $(cat /proc/cmdline); do
		case "$a" in "$1="*) echo "${a#"$1"=}" ;; esac
	done | tail -n 1
}
meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }

mem=$(cmdarg gsim.mem)
mem_mib=${mem%M}
pages=$(cmdarg hugepages)
check "vm.sh passes the guest RAM size (gsim.mem=<N>M)" \
	sh -c "[ -n '$mem' ] && [ '$mem_mib' -gt 0 ]"
check "vm.sh reserves huge pages by default (hugepages=<N>, N > 0)" \
	sh -c "[ -n '$pages' ] && [ '$pages' -gt 0 ]"
check "huge page size is 2 MiB" sh -c "[ '$(meminfo Hugepagesize)' = 2048 ]"

total_kib=$(meminfo MemTotal)
# MemTotal is the RAM less the kernel's image and early reservations.
if [ -n "$mem_mib" ] && [ -n "$total_kib" ]; then
	check "MemTotal ($total_kib kB) at most the $mem_mib MiB given" \
		[ "$total_kib" -le $((mem_mib * 1024)) ]
	check "MemTotal ($total_kib kB) at least 7/8 of the $mem_mib MiB given" \
		[ "$total_kib" -ge $((mem_mib * 1024 * 7 / 8)) ]
fi
if [ -n "$pages" ]; then
	check "HugePages_Total is the $pages reserved" [ "$(meminfo HugePages_Total)" = "$pages" ]
	check "all $pages huge pages are free for user programs" \
		[ "$(meminfo HugePages_Free)" = "$pages" ]
fi
check "hugetlbfs mounted at /dev/hugepages" \
	sh -c "awk '\$2 == \"/dev/hugepages\" && \$3 == \"hugetlbfs\"' /proc/mounts | grep -q ."

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
