-- Lua 5.4 does not verify bytecode: a crafted binary chunk must never load
local b = string.dump(function(x) return x + 1 end)
local bad = b:sub(1, 20) .. string.rep("\255", 40) .. b:sub(61)
for _, chunk in ipairs({ b, bad }) do
  assert(load(chunk) == nil)
  assert(load(chunk, "c", "b") == nil)
  assert(load(chunk, "c", "bt", {}) == nil)
  local i = 0
  assert(load(function() i = i + 1; return i == 1 and chunk or nil end) == nil)
end
assert(loadfile == nil and dofile == nil and require == nil) -- the sandbox has none
