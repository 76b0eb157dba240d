-- Waits until the server has published diagnostics for the current buffer (counted by
-- record.lua) and at least $EXPECTED of them are there, writes them to $OUT as JSON with what
-- the end-to-end test asserts, then quits.
local expected = tonumber(os.getenv('EXPECTED') or '1')
local settled = vim.wait(20000, function()
  return PODCYCLE_PUBLISHED > 0 and #vim.diagnostic.get(0) >= expected
end, 50)

local found = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(found, {
    code = d.code,
    source = d.source,
    severity = d.severity,
    lnum = d.lnum,
    col = d.col,
    end_lnum = d.end_lnum,
    end_col = d.end_col,
    message = d.message,
  })
end
table.sort(found, function(a, b)
  return a.lnum < b.lnum or (a.lnum == b.lnum and a.col < b.col)
end)

local file = io.open(os.getenv('OUT'), 'w')
file:write(vim.fn.json_encode({ settled = settled, diagnostics = found }))
file:close()
vim.cmd('qa!')
