-- debug.setmetatable / setupvalue / sethook / getregistry would pass one
-- userdata for another, rewrite a C closure, remove the bounds' hook
local sim = tcsim.sim{}
local dev = sim:dev("eth0")
assert(debug.setmetatable == nil and debug.setupvalue == nil and debug.sethook == nil)
assert(debug.getregistry == nil and debug.upvaluejoin == nil and debug.setuservalue == nil)
assert(getmetatable(sim) == "tcsim.sim" and getmetatable(dev) == "tcsim.dev")
print(debug.traceback("ok"), debug.getinfo(1, "l").currentline)
