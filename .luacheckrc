-- The Redis store's Lua (server/stores/redis/lua), as Redis runs it: Lua 5.1 with Redis's own
-- globals. `make lint` runs luacheck through .ci/luacheck.py, which checks each script composed
-- with the libraries its `-- uses:` line names, so the libraries' functions are locals, not globals.
std = "lua51"
read_globals = {"redis", "KEYS", "ARGV", "cjson", "cmsgpack", "bit", "struct"}
max_line_length = 100
