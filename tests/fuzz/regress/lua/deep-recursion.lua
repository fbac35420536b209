-- deep recursion: Lua's, through C (tostring, __index), and in the parser
local function f(n) return f(n + 1) + 1 end
print(pcall(f, 1))
local t = setmetatable({}, {}); getmetatable(t).__index = function(s, k) return s[k] end
print(pcall(function() return t.x end))
print(load(string.rep("(", 100000) .. "1" .. string.rep(")", 100000)))
print(load("return " .. string.rep("{", 50000) .. string.rep("}", 50000)))
local sim = tcsim.sim{}
sim:dev("eth0")
local function g(n) if n == 0 then return sim:stats() end return g(n - 1) end
print(pcall(g, 180))
