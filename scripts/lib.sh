# What scripts/test and scripts/cost share (sourced, not run): the pinned tools, the two
# DynamoDB-compatible servers the tests run against, and background jobs with their logs.
# Everything it installs is cached in .cache/ (gitignored) and reused by the next run; it needs
# only python3, node/npm and cargo.

export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
JOBS="${JOBS:-2}"
# A run from a clean clone gains nothing from incremental compilation, and its files are a
# good part of target/'s size (a CI machine once ran out of disk at the first clippy).
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

# Pinned tools. Changing a pin reinstalls that tool on the next run.
PY_TOOLS=("moto[dynamodb]==5.2.5" "flask==3.1.3" "flask-cors==6.0.5" "cfn-lint==1.58.0" "http-ece==1.2.1"
    "schemathesis==4.32.5")
DYNALITE=dynalite@4.0.0
# checkov (a scanner of CloudFormation) in a venv of its own: it pins boto3 and others at versions
# of its own, which must not move the emulators'.
CHECKOV="checkov==3.3.30"

CACHE="$PWD/.cache"
VENV="$CACHE/venv"
CHECKOV_VENV="$CACHE/checkov"
NODE_DIR="$CACHE/dynalite"
LOGS="$CACHE/logs"
mkdir -p "$CACHE" "$LOGS"

for tool in python3 node npm cargo; do
    command -v "$tool" >/dev/null || { echo "$0 needs $tool on PATH" >&2; exit 1; }
done

# The emulators and the SDK in the tests must never look for real AWS credentials: dummy static
# ones, a fixed region, and no probing of the instance-metadata address.
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_REGION=us-east-1
export AWS_DEFAULT_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true

# A heading for the next phase, with the seconds since the script started (where the time goes).
step() { echo "== [${SECONDS}s] $*"; }

# moto, cfn-lint, schemathesis and http-ece (the push tests' decryption) in a venv, only when
# its pins changed since the last run (a stamp file records them).
install_venv() {
    local py_stamp="${PY_TOOLS[*]}"
    if [[ "$(cat "$VENV/.pins" 2>/dev/null)" != "$py_stamp" ]]; then
        rm -rf "$VENV"
        python3 -m venv "$VENV" || {
            echo "python3 -m venv failed; on Debian/Ubuntu install python3-venv" >&2
            return 1
        }
        "$VENV/bin/pip" install --quiet --disable-pip-version-check --no-input "${PY_TOOLS[@]}"
        echo "$py_stamp" >"$VENV/.pins"
    fi
}

# The venv above, checkov in its own, and dynalite with npm. Each only when its pins changed.
install_tools() {
    install_venv
    if [[ "$(cat "$CHECKOV_VENV/.pins" 2>/dev/null)" != "$CHECKOV" ]]; then
        rm -rf "$CHECKOV_VENV"
        python3 -m venv "$CHECKOV_VENV"
        "$CHECKOV_VENV/bin/pip" install --quiet --disable-pip-version-check --no-input "$CHECKOV"
        echo "$CHECKOV" >"$CHECKOV_VENV/.pins"
    fi
    if [[ "$(cat "$NODE_DIR/.pins" 2>/dev/null)" != "$DYNALITE" ]]; then
        rm -rf "$NODE_DIR"
        mkdir -p "$NODE_DIR"
        npm install --prefix "$NODE_DIR" --no-audit --no-fund --loglevel=error "$DYNALITE" </dev/null
        echo "$DYNALITE" >"$NODE_DIR/.pins"
    fi
}

# A Node package's dependencies, pinned by its package-lock.json, installed with `npm ci`
# (downloads cached in .cache/npm) only when the lock changed.
npm_ci() {
    local dir=$1 stamp
    stamp=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
    if [[ "$(cat "$dir/node_modules/.pins" 2>/dev/null)" != "$stamp" ]]; then
        (cd "$dir" && npm ci --cache "$CACHE/npm" --prefer-offline --no-audit --no-fund --loglevel=error </dev/null)
        echo "$stamp" >"$dir/node_modules/.pins"
    fi
}

# Free loopback ports, distinct (both sockets are held while the OS picks). Neither emulator can
# bind port 0 and report it, so ask the OS and hand the ports over; the window in which another
# process could take one is tiny.
free_ports() {
    python3 -c '
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))
' "$1"
}

# Waits until an HTTP server answers on the port (any status counts: dynalite answers 400 to a
# bare GET). Gives up after 30 s and shows the server's log.
wait_ready() {
    local name=$1 port=$2 log=$3
    if ! python3 - "$port" <<'EOF'; then
import sys, time, urllib.request, urllib.error
url = f"http://127.0.0.1:{sys.argv[1]}/"
for _ in range(300):
    try:
        urllib.request.urlopen(url, timeout=1)
        sys.exit(0)
    except urllib.error.HTTPError:
        sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit(1)
EOF
        echo "$name did not start on port $port; its log:" >&2
        cat "$log" >&2
        return 1
    fi
}

# Every process this script started in the background (servers and jobs), each the leader of
# a process group of its own (job control is on while it starts), so that stopping it stops
# what it started too; all stopped on exit.
STARTED_PIDS=()
stop_started() {
    local pid
    for pid in "${STARTED_PIDS[@]}"; do
        kill -- "-$pid" 2>/dev/null || true
    done
}
trap stop_started EXIT
trap 'exit 130' INT TERM # exit, so the EXIT trap stops them

# Starts `$@` (a command or a function) in the background in a process group of its own.
start_bg() {
    local log=$1
    shift
    set -m
    ("$@") </dev/null >"$log" 2>&1 &
    STARTED_PIDS+=($!)
    set +m
}

# Starts `$@` as a job whose log is $LOGS/$name.log; wait_bg collects it.
BG_PIDS=()
BG_NAMES=()
run_bg() {
    local name=$1
    shift
    start_bg "$LOGS/$name.log" "$@"
    BG_PIDS+=("${STARTED_PIDS[-1]}")
    BG_NAMES+=("$name")
}

# Waits for every job of run_bg; a failed one's log is shown. Fails if any failed.
wait_bg() {
    local failed=() i
    for i in "${!BG_PIDS[@]}"; do
        if wait "${BG_PIDS[$i]}"; then
            echo "   ${BG_NAMES[$i]}: ok (log: .cache/logs/${BG_NAMES[$i]}.log)"
            grep -h '^== FLAKY:' "$LOGS/${BG_NAMES[$i]}.log" | sed 's/^/   /' || true
        else
            failed+=("${BG_NAMES[$i]}")
            echo "== ${BG_NAMES[$i]} FAILED; the end of its log (.cache/logs/${BG_NAMES[$i]}.log):" >&2
            # The failures first (node's TAP "not ok" and cargo's "FAILED"/"panicked" lines, with
            # what follows them), then the end: a long log's tail alone may show only passes.
            grep -n -A30 -E '^ *not ok|panicked at|^---- .* stdout ----' \
                "$LOGS/${BG_NAMES[$i]}.log" | head -n 200 >&2 || true
            echo "   ... the last lines:" >&2
            tail -n 30 "$LOGS/${BG_NAMES[$i]}.log" >&2
        fi
    done
    BG_PIDS=()
    BG_NAMES=()
    if ((${#failed[@]})); then
        echo "failed: ${failed[*]}" >&2
        return 1
    fi
}

# dynalite and moto on free loopback ports, named in MADANG_DYNALITE_ENDPOINT and
# MADANG_MOTO_ENDPOINT (the variables the tests read).
start_emulators() {
    local dynalite_port moto_port
    read -r dynalite_port moto_port < <(free_ports 2)
    start_bg "$LOGS/dynalite.log" node "$NODE_DIR/node_modules/dynalite/cli.js" \
        --host 127.0.0.1 --port "$dynalite_port" \
        --createTableMs 0 --deleteTableMs 0 --updateTableMs 0
    # moto through a launcher that serves one request at a time: moto alone does not apply a
    # conditional write atomically across its request threads (see the script).
    start_bg "$LOGS/moto.log" "$VENV/bin/python" scripts/moto_server.py -H 127.0.0.1 -p "$moto_port"
    wait_ready dynalite "$dynalite_port" "$LOGS/dynalite.log"
    wait_ready moto "$moto_port" "$LOGS/moto.log"
    export MADANG_DYNALITE_ENDPOINT="http://127.0.0.1:$dynalite_port"
    export MADANG_MOTO_ENDPOINT="http://127.0.0.1:$moto_port"
    echo "   dynalite $MADANG_DYNALITE_ENDPOINT, moto $MADANG_MOTO_ENDPOINT"
}

# Where cargo puts this build's binaries.
target_dir() {
    echo "${CARGO_TARGET_DIR:-$PWD/target}"
}
