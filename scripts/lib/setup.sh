# Sourced by the scripts in scripts/: makes sure the system packages the
# build needs are present, installing them on a fresh machine.
#
# BloodMagic links the system's Lua 5.4 (pkg-config name `lua5.4`). On Debian
# and Ubuntu that is liblua5.4-dev; on macOS, Homebrew's lua.

bm_log() { printf 'bloodmagic: %s\n' "$*" >&2; }

bm_as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        bm_log "need root to run: $* (no sudo found)"
        return 1
    fi
}

bm_ensure_lua() {
    if command -v pkg-config >/dev/null 2>&1 && pkg-config --exists lua5.4; then
        return 0
    fi
    if command -v apt-get >/dev/null 2>&1; then
        bm_log "pkg-config cannot find lua5.4; installing liblua5.4-dev and pkg-config with apt-get"
        export DEBIAN_FRONTEND=noninteractive
        bm_as_root apt-get update -qq >&2
        bm_as_root apt-get install -y -qq liblua5.4-dev pkg-config >&2
    elif command -v brew >/dev/null 2>&1; then
        bm_log "pkg-config cannot find lua5.4; installing lua and pkg-config with Homebrew"
        brew install lua pkg-config >&2
    else
        bm_log "cannot find lua5.4 with pkg-config and know no package manager to install it; install Lua 5.4 development files"
        return 1
    fi
    if ! pkg-config --exists lua5.4; then
        bm_log "lua5.4 is still not visible to pkg-config after installing"
        return 1
    fi
}

bm_ensure_swift() {
    if ! command -v swift >/dev/null 2>&1; then
        bm_log "swift is not on PATH; install a Swift 6 toolchain (swift.org) first"
        return 1
    fi
}

bm_ensure_luacheck() {
    if command -v luacheck >/dev/null 2>&1; then
        return 0
    fi
    if command -v apt-get >/dev/null 2>&1; then
        bm_log "luacheck is missing; installing Debian's lua-check with apt-get"
        export DEBIAN_FRONTEND=noninteractive
        bm_as_root apt-get update -qq >&2
        bm_as_root apt-get install -y -qq lua-check >&2
    elif command -v brew >/dev/null 2>&1; then
        bm_log "luacheck is missing; installing it with Homebrew"
        brew install luacheck >&2
    else
        bm_log "luacheck is missing and no package manager is known to install it"
        return 1
    fi
}
