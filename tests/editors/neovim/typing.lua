-- Types a Deployment into an empty YAML buffer a line (or part of a line) at a time, waits
-- after each step for the diagnostics of exactly that text, then applies the quick fixes the
-- server offers, through Neovim's own edit handling. Writes every step's diagnostics and the
-- final text to $OUT as JSON. Run with record.lua (`--cmd`) and init.lua (`-u`) on a new file.
local steps = {
  'apiVersion: apps/v1',
  'kind: Deploy',
  { 'kind: Deployment' },
  'metadata:',
  '  name: web',
  'spec:',
  '  selector:',
  '    matchLabels: {app: web',
  { '    matchLabels: {app: web}' },
  '  template:',
  '    metadata:',
  '      labels: {app: web}',
  '    spec:',
  '      terminationGracePeriodSeconds: 10',
  '      initContainers:',
  '      - name: proxy',
  '        image: envoyproxy/envoy:v1.31',
  '        startupProbe:',
  '          tcpSocket: {port: 9901}',
  '      containers:',
  '      - name: web',
  '        image: nginx:1.25',
  '        lifecycle:',
  '          preStop:',
  '            exec:',
  '              command: ["sleep", "2',
  { '              command: ["sleep", "20"]' },
}

local buf = vim.api.nvim_get_current_buf()

local function settle()
  local ok = vim.wait(10000, function()
    return PODCYCLE_VERSION ~= nil and PODCYCLE_VERSION == vim.lsp.util.buf_versions[buf]
  end, 20)
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(found, { code = d.code, lnum = d.lnum, col = d.col, message = d.message })
  end
  table.sort(found, function(a, b) return a.lnum < b.lnum or (a.lnum == b.lnum and a.col < b.col) end)
  return ok, found
end

local log = {}
for i, step in ipairs(steps) do
  local count = vim.api.nvim_buf_line_count(buf)
  local empty = count == 1 and vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] == ''
  if type(step) == 'table' then
    -- Finish the line typed so far.
    vim.api.nvim_buf_set_lines(buf, count - 1, count, false, step)
  elseif empty then
    vim.api.nvim_buf_set_lines(buf, 0, 1, false, { step })
  else
    vim.api.nvim_buf_set_lines(buf, count, count, false, { step })
  end
  local ok, found = settle()
  table.insert(log, { step = i, line = type(step) == 'table' and step[1] or step, settled = ok, diagnostics = found })
end

-- Apply the preferred quick fix of every finding, one at a time, asking the way
-- `vim.lsp.buf.code_action()` does: the cursor's position (here the start of the finding's
-- line) and the diagnostics of that line.
local client = vim.lsp.get_active_clients()[1]
local applied = {}
for _ = 1, 5 do
  local _, found = settle()
  if #found == 0 then break end
  local d = vim.diagnostic.get(buf)[1]
  local cursor = { line = d.lnum, character = 0 }
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = { start = cursor, ['end'] = cursor },
    context = { diagnostics = vim.lsp.diagnostic.get_line_diagnostics(buf, d.lnum) },
  }
  local response = client.request_sync('textDocument/codeAction', params, 5000, buf)
  local actions = response and response.result or {}
  local chosen = nil
  for _, action in ipairs(actions) do
    if action.isPreferred then chosen = action break end
  end
  if chosen == nil then break end
  vim.lsp.util.apply_workspace_edit(chosen.edit, client.offset_encoding)
  table.insert(applied, chosen.title)
end
local ok, remaining = settle()

local file = io.open(os.getenv('OUT'), 'w')
file:write(vim.fn.json_encode({
  steps = log,
  applied = applied,
  settled = ok,
  remaining = remaining,
  text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n'),
}))
file:close()
vim.cmd('qa!')
