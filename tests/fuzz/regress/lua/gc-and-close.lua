-- finalizers are refused in the sandbox; to-be-closed values run the API
local ok = pcall(setmetatable, {}, { __gc = function() tcsim.sim{} end })
assert(not ok)
do
  local sim <close> = tcsim.sim{}
  sim:dev("eth0")
  local t <close> = setmetatable({}, { __close = function() sim:run(); tcsim.sim{}:dev("x") end })
end
local s2 = tcsim.sim{}
local t2 <close> = setmetatable({}, { __close = function() s2:close(); s2:close() end })
