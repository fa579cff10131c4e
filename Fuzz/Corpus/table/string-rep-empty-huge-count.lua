-- C functions (issue 11), found by fuzzing: string.rep("", 1 << 30) looped a
-- billion times in C under a 1M-instruction limit.
string.rep("", 1 << 30)