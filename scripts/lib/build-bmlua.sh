# Sourced by scripts/bmlua and scripts/install: builds bmlua quietly.
#
# bm_build_bmlua CONFIGURATION ROOT
#   Skips SwiftPM entirely when the binary is newer than every source file,
#   manifest and embedded resource (so a run costs the binary's own time).
#   Otherwise, when standard error is a terminal, says that it builds (the
#   first build takes minutes) and shows SwiftPM's progress there as it goes;
#   when it is not (a pipe, a CI log), builds with SwiftPM's output captured,
#   shown (on standard error) only when the build fails or actually compiled
#   something.

bm_bmlua_is_fresh() {
    local binary="$1" root="$2"
    [ -x "$binary" ] || return 1
    [ -z "$(find "$root/Package.swift" "$root/Sources" -newer "$binary" -print -quit 2>/dev/null)" ]
}

bm_build_bmlua() {
    local configuration="$1" root="$2"
    local binary="$root/.build/$configuration/bmlua"
    if bm_bmlua_is_fresh "$binary" "$root"; then
        return 0
    fi
    if [ -t 2 ]; then
        printf 'Building bmlua (%s): the first build takes a few minutes; later ones only what changed.\n' "$configuration" >&2
        swift build --package-path "$root" -c "$configuration" --product bmlua >&2 || return 1
        touch "$binary"
        return 0
    fi
    local log
    log="$(mktemp "${TMPDIR:-/tmp}/bmlua-build.XXXXXX")"
    if ! swift build --package-path "$root" -c "$configuration" --product bmlua >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        return 1
    fi
    if grep -q 'Compiling\|Linking' "$log"; then
        cat "$log" >&2
    fi
    rm -f "$log"
    # SwiftPM leaves an up-to-date binary untouched; mark it as checked so the
    # next run takes the fast path.
    touch "$binary"
}
