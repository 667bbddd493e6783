#!/usr/bin/env bash
# Hot unplug of a gaudisim device with a job in flight, driven from the host.
# Boots the guest with a second device behind a hot-pluggable PCIe root port
# and a QMP socket. When tests/guest/gsim-hotplug-guest.sh asks, hangs the
# device's DMA_0 engine through its fault-hang-engine property (the guest
# checks timeout, reset, dump and recovery); when the guest holds a job on
# the device, sends device_del over QMP and waits for DEVICE_DELETED; then
# takes the guest's verdict. Prints "N passed, N failed"; exits non-zero on failure.
#   scripts/test-hotplug.sh        (needs python3 for the QMP client)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gsim-hotplug.XXXXXX")
trap 'kill "$vm" 2>/dev/null; rm -rf "$tmp"' EXIT
mkdir -p "$tmp/share"
sock=$tmp/qmp.sock
passed=0
failed=0
check() { # description, status
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: $1"
	fi
}

command -v python3 >/dev/null || { echo "test-hotplug: python3 is needed"; echo "0 passed, 1 failed"; exit 1; }

export GAUDISIM_QEMU_ARGS="${GAUDISIM_QEMU_ARGS:-} -device pcie-root-port,id=rp0,bus=pcie.0,slot=1,chassis=1 -device gaudisim,bus=rp0,id=gsim1,hbm-size=1G -qmp unix:$sock,server=on,wait=off"
bash "$top/scripts/vm.sh" run -t 600 -s "$tmp/share" -- 'gsim-hotplug-guest.sh /mnt/host' \
	> "$tmp/vm.log" 2>&1 &
vm=$!

# await_file NAME: wait for the guest to create NAME in the shared folder.
await_file() {
	for _ in $(seq 1 1500); do
		[ -e "$tmp/share/$1" ] && return 0
		kill -0 "$vm" 2>/dev/null || return 1
		sleep 0.2
	done
	return 1
}

# qmp MODE: hang (qom-set fault-hang-engine 0 on gsim1) or unplug
# (device_del, then wait for DEVICE_DELETED).
qmp() {
python3 - "$sock" "$1" <<'PY'
import json, socket, sys, time

s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(5)
s.connect(sys.argv[1])
f = s.makefile("rw")

def send(cmd, **args):
    f.write(json.dumps({"execute": cmd, "arguments": args} if args else {"execute": cmd}) + "\n")
    f.flush()

def read():
    line = f.readline()
    if not line:
        raise SystemExit("QMP closed")
    return json.loads(line)

print("greeting:", "QMP" in read())
send("qmp_capabilities")
while "return" not in read():
    pass
if sys.argv[2] == "hang":
    send("qom-set", path="/machine/peripheral/gsim1", property="fault-hang-engine", value=0)
    while True:
        msg = read()
        if "return" in msg or "error" in msg:
            break
    print("qom-set", "ok" if "return" in msg else "error: %s" % msg["error"])
    sys.exit(0 if "return" in msg else 1)
send("device_del", id="gsim1")
deadline = time.time() + 150
ok = False
while time.time() < deadline:
    try:
        msg = read()
    except socket.timeout:
        continue
    if "error" in msg:
        print("device_del error:", msg["error"])
        break
    if "return" in msg:
        print("device_del accepted")
    if msg.get("event") == "DEVICE_DELETED" and msg.get("data", {}).get("device") == "gsim1":
        print("DEVICE_DELETED after %.1f s" % (time.time() + 150 - deadline))
        ok = True
        break
sys.exit(0 if ok else 1)
PY
}

# The injected hang, when the guest asks for it.
await_file hang-me
check "guest asks for the engine hang" $?
qmp hang > "$tmp/qmp-hang.log" 2>&1
check "qom-set fault-hang-engine accepted" $?
cat "$tmp/qmp-hang.log"
touch "$tmp/share/hung"

# The guest says when its job is in flight.
await_file ready
check "guest holds a job on the hot-pluggable device" $?

# device_del, then the DEVICE_DELETED event once the guest let it go.
qmp unplug > "$tmp/qmp.log" 2>&1
qmp_rc=$?
cat "$tmp/qmp.log"
check "device_del accepted" "$(grep -q '^device_del accepted' "$tmp/qmp.log"; echo $?)"
check "DEVICE_DELETED for gsim1" "$qmp_rc"

wait "$vm"
vm_rc=$?
vm=
sed -n '/gsim-hotplug\|holder:\|FAIL\|passed, /p' "$tmp/vm.log"
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$tmp/vm.log" | tail -n 1)
if [ -n "$line" ]; then
	passed=$((passed + ${line%% passed*}))
	f=${line#*passed, }
	failed=$((failed + ${f%% failed*}))
else
	tail -n 30 "$tmp/vm.log"
	check "guest reported (vm.sh status $vm_rc)" 1
fi
check "guest exit status" "$vm_rc"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
