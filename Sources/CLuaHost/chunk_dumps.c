/*
 * chunk_dumps.c: a binary chunk of BloodMagic's own Lua (the `bm` prelude)
 * made cheaper to load, by dropping the names of its local variables and
 * upvalues from the dump.
 *
 * Every new state loads the prelude from its binary dump (BMPreludeChunk).
 * Loading a dump interns each string it holds, and with its debug
 * information the prelude holds some 1,300 names of locals and upvalues:
 * about half of what a load costs, and a sixth of a new ScriptHost. Lua's
 * own stripping (`lua_dump(..., strip = 1)`) would drop them, but also the
 * chunk name (a stripped chunk reads `?`), which marks the prelude's frames
 * as internal, and the line information its positions and tracebacks show.
 * So this rewrites a full dump keeping everything but those names: the
 * chunk name, lines, code and constants are the bytes Lua wrote.
 *
 * Without the names, a message about the prelude's own code says less (a
 * nil index names no local; a traceback names a local function by its
 * position, `function <[bm]:120>`); scripts' chunks keep theirs (only this
 * chunk is rewritten), and positions are unchanged.
 *
 * The dump is only ever one the same Lua library made in this process
 * (LuaPrecompiledChunk.compile); scripts still cannot load binary chunks.
 * The rewrite reads the format of Lua 5.4's ldump.c; anything it does not
 * expect (another version or format, a size out of bounds) makes it give
 * up, and the caller keeps the full dump. It is linear in the dump's size.
 */
#include <stdlib.h>
#include <string.h>

#include "bm_chunk_dumps.h"

/* Lua 5.4's type tags of constants in a dump (lobject.h). */
#define DUMP_VNIL 0x00
#define DUMP_VFALSE 0x01
#define DUMP_VTRUE 0x11
#define DUMP_VNUMINT 0x03
#define DUMP_VNUMFLT 0x13
#define DUMP_VSHRSTR 0x04
#define DUMP_VLNGSTR 0x14

typedef struct rewrite {
    const unsigned char *in;
    size_t size;
    size_t at;
    unsigned char *out;
    size_t written;
    int failed;
    size_t integer_size;
    size_t number_size;
    size_t instruction_size;
} rewrite;

static void copy(rewrite *R, size_t n) {
    if (R->failed || n > R->size - R->at) {
        R->failed = 1;
        return;
    }
    memcpy(R->out + R->written, R->in + R->at, n);
    R->at += n;
    R->written += n;
}

static void skip(rewrite *R, size_t n) {
    if (R->failed || n > R->size - R->at) {
        R->failed = 1;
        return;
    }
    R->at += n;
}

/* A size as ldump.c's dumpSize writes it (7 bits a byte, most significant
   first, the last byte marked with 0x80), read and copied when `keep`. */
static size_t size_field(rewrite *R, int keep) {
    size_t value = 0;
    for (int bytes = 0; !R->failed; bytes++) {
        if (R->at >= R->size || bytes >= 10 || value > (((size_t)-1) >> 7)) {
            R->failed = 1;
            break;
        }
        unsigned char byte = R->in[R->at];
        if (keep) copy(R, 1); else skip(R, 1);
        value = (value << 7) | (byte & 0x7f);
        if (byte & 0x80) return value;
    }
    return 0;
}

/* A string: its size + 1 (0 for none), then its bytes. */
static void string_field(rewrite *R, int keep) {
    size_t size = size_field(R, keep);
    if (size > 0) {
        if (keep) copy(R, size - 1); else skip(R, size - 1);
    }
}

/* Writes 0 as a size (an empty vector). */
static void zero_size(rewrite *R) {
    if (R->failed) return;
    R->out[R->written++] = 0x80;
}

static void function_(rewrite *R, int depth) {
    if (depth > 200) {
        R->failed = 1;
        return;
    }
    string_field(R, 1);          /* source */
    size_field(R, 1);            /* linedefined */
    size_field(R, 1);            /* lastlinedefined */
    copy(R, 3);                  /* numparams, is_vararg, maxstacksize */
    size_t code = size_field(R, 1);
    if (code > R->size / (R->instruction_size ? R->instruction_size : 1)) R->failed = 1;
    copy(R, code * R->instruction_size);
    size_t constants = size_field(R, 1);
    for (size_t i = 0; i < constants && !R->failed; i++) {
        if (R->at >= R->size) {
            R->failed = 1;
            break;
        }
        unsigned char tag = R->in[R->at];
        copy(R, 1);
        switch (tag) {
        case DUMP_VNIL:
        case DUMP_VFALSE:
        case DUMP_VTRUE: break;
        case DUMP_VNUMINT: copy(R, R->integer_size); break;
        case DUMP_VNUMFLT: copy(R, R->number_size); break;
        case DUMP_VSHRSTR:
        case DUMP_VLNGSTR: string_field(R, 1); break;
        default: R->failed = 1;
        }
    }
    size_t upvalues = size_field(R, 1);
    if (upvalues > R->size) R->failed = 1;
    copy(R, upvalues * 3);       /* instack, idx, kind */
    size_t protos = size_field(R, 1);
    for (size_t i = 0; i < protos && !R->failed; i++) function_(R, depth + 1);
    /* Debug information: line information kept, names dropped. */
    size_t lines = size_field(R, 1);
    copy(R, lines);
    size_t absolute = size_field(R, 1);
    for (size_t i = 0; i < absolute && !R->failed; i++) {
        size_field(R, 1);        /* pc */
        size_field(R, 1);        /* line */
    }
    size_t locals = size_field(R, 0);
    zero_size(R);
    for (size_t i = 0; i < locals && !R->failed; i++) {
        string_field(R, 0);      /* varname */
        size_field(R, 0);        /* startpc */
        size_field(R, 0);        /* endpc */
    }
    size_t names = size_field(R, 0);
    zero_size(R);
    for (size_t i = 0; i < names && !R->failed; i++) string_field(R, 0);
}

unsigned char *bm_dump_without_names(const unsigned char *dump, size_t size, size_t *new_size) {
    /* The header: signature, version 5.4, format 0, LUAC_DATA, three sizes,
       then a test integer and number (copied as they are). */
    static const unsigned char signature[] = {0x1b, 'L', 'u', 'a', 0x54, 0x00, 0x19, 0x93, '\r', '\n', 0x1a, '\n'};
    if (size < sizeof signature + 3 || memcmp(dump, signature, sizeof signature) != 0) return NULL;
    rewrite R = {dump, size, 0, NULL, 0, 0, 0, 0, 0};
    /* The output is never longer than the input: names are only dropped,
       and each dropped vector's size takes one byte, as 0 does. */
    R.out = malloc(size);
    if (R.out == NULL) return NULL;
    copy(&R, sizeof signature);
    R.instruction_size = dump[R.at];
    R.integer_size = dump[R.at + 1];
    R.number_size = dump[R.at + 2];
    copy(&R, 3);
    if (R.instruction_size != 4 || R.integer_size == 0 || R.integer_size > 8 || R.number_size == 0 || R.number_size > 8) {
        R.failed = 1;
    }
    copy(&R, R.integer_size);
    copy(&R, R.number_size);
    copy(&R, 1);                 /* the main closure's upvalue count */
    function_(&R, 0);
    if (R.failed || R.at != R.size) {
        free(R.out);
        return NULL;
    }
    *new_size = R.written;
    return R.out;
}
