/*
 * libFuzzer's driver entry (compiler-rt, FuzzerInterface.h), linked in by
 * -sanitize=fuzzer. The executables call it from their own `main`, because
 * SwiftPM renames an executable's entry point and then expects that symbol,
 * so libFuzzer's `main` cannot be used directly.
 */
#ifndef BLOODMAGIC_FUZZ_LIBFUZZER_H
#define BLOODMAGIC_FUZZ_LIBFUZZER_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*UserCb)(const uint8_t *Data, size_t Size));

#endif
