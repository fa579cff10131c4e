return os.time(), os.clock() >= 0, os.date("!%Y-%m-%d", 0), pcall(os.date, "%Ez"), pcall(os.date, "*t", 1 << 62)
