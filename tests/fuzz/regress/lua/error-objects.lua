-- error objects that are not strings reach the message handler
local kinds = { {}, setmetatable({}, { __tostring = function() return "obj" end }),
  setmetatable({}, { __tostring = function() error("in tostring") end }),
  setmetatable({}, { __tostring = function() return {} end }), 42, true, print }
for _, e in ipairs(kinds) do pcall(error, e) end
local n = 0
local deep = setmetatable({}, { __tostring = function(self) n = n + 1; return tostring(self) end })
pcall(tostring, deep)
error(setmetatable({}, { __tostring = function() error("again") end }))
