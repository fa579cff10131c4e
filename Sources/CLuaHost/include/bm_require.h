/*
 * bm_require.h: files below a directory. The sandbox's `require`, confined
 * to the module directory, the module-name rule, and the path check that
 * partial templates share (bm_confined_path).
 */
#ifndef BLOODMAGIC_BM_REQUIRE_H
#define BLOODMAGIC_BM_REQUIRE_H

#include "../../CLua/CLua.h"

/* The registry field holding the module directory of a sandboxed state (a
   string, as the host gave it), or nil: then `require` finds no files. */
static const char *const BM_MODULE_DIRECTORY_KEY = "bloodmagic.moduledirectory";

/* The longest module name `require` accepts, in bytes. */
static const size_t BM_MODULE_NAME_MAX = 200;

/* Whether `name` (`length` bytes) is a module name the sandbox resolves:
   segments of [A-Za-z0-9_-], separated by single dots (a dot is a directory,
   as in Lua), none empty, at most BM_MODULE_NAME_MAX bytes in all. So no
   '/', no '..', no absolute path and no embedded NUL can reach a path. */
int bm_is_module_name(const char *name, size_t length);

/* What bm_confined_path found. */
static const int BM_PATH_FOUND = 0;        /* a regular file below the directory */

static const int BM_PATH_MISSING = 1;      /* no such file (or not a regular file) */

static const int BM_PATH_OUTSIDE = 2;      /* it exists, but its real path leaves the directory */

static const int BM_PATH_NO_DIRECTORY = 3; /* the directory itself does not resolve */

/*
 * Resolves `relative` (a path the caller built from validated names) below
 * `directory`, following symbolic links (realpath) for both. BM_PATH_FOUND
 * writes the file's real path into `resolved` (PATH_MAX bytes) only when it
 * is a regular file whose real path lies inside the directory's real path,
 * so a link inside the directory that points elsewhere is never used.
 */
int bm_confined_path(const char *directory, const char *relative, char *resolved);

/* Loads the file at `resolved` as a text chunk named `@<shown>` and pushes
   the function, or raises with Lua's "error loading module" message; the
   text is kept for positions (chunk_texts.c defines it). */
void bm_sandbox_load_module_file(lua_State *L, const char *name, const char *resolved, const char *shown);

/*
 * The sandbox's `require(name)`. As Lua's: package.loaded first, then
 * package.preload, then files; a loader gets (name, data) and its result
 * (or true) is stored in package.loaded; returns the module and the loader
 * data. Unlike Lua's it ignores package.path and package.searchers: files
 * come from the module directory only (bm_search_module_directory).
 */
int bm_confined_require(lua_State *L);

/*
 * Makes the `package` table on top of the stack the sandbox's: path, cpath
 * and searchers removed, loadlib and searchpath answering that they are not
 * available (from a protected metatable's __index, so they cannot be
 * replaced), assignments to any of those refused; and sets the global
 * `require` to bm_confined_require.
 */
void bm_confine_package(lua_State *L);

#endif /* BLOODMAGIC_BM_REQUIRE_H */
