/*
 * bm_chunk_dumps.h: BloodMagic's own binary chunks made cheaper to load
 * (chunk_dumps.c).
 */
#ifndef BLOODMAGIC_BM_CHUNK_DUMPS_H
#define BLOODMAGIC_BM_CHUNK_DUMPS_H

#include <stddef.h>

/*
 * A copy of `dump` (a binary chunk lua_dump wrote, with debug information)
 * without the names of local variables and upvalues: chunk names, lines,
 * code and constants as they were. NULL when the dump is not in the format
 * expected (Lua 5.4) or memory runs out; else the copy, `*new_size` bytes,
 * which the caller frees with free(). Linear in `size`. Only for the host's
 * own chunks: scripts never load binary chunks.
 */
unsigned char *bm_dump_without_names(const unsigned char *dump, size_t size, size_t *new_size);

#endif /* BLOODMAGIC_BM_CHUNK_DUMPS_H */
