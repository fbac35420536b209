-- the budget's stop cannot be caught for good by pcall, xpcall or coroutines
while true do
  pcall(function() while true do end end)
  xpcall(function() while true do end end, function() while true do end end)
  coroutine.wrap(function() pcall(function() while true do end end) end)()
end
