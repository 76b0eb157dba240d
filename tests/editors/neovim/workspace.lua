-- In a workspace whose `.podcycle.yaml` ignores `init-container-probe`: waits until the server
-- has asked to watch files, logged its index of the workspace and published diagnostics for
-- the buffer; then changes the configuration on disk and reports the change as a client that
-- watches files does (`workspace/didChangeWatchedFiles`), and waits for the finding to come
-- back. Writes what it saw to $OUT as JSON, then quits.
local function logged(text)
  for _, message in ipairs(PODCYCLE_LOGS) do
    if message:find(text, 1, true) then
      return message
    end
  end
  return nil
end

local function codes()
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(0)) do
    table.insert(found, d.code)
  end
  table.sort(found)
  return found
end

local function has_code(code)
  for _, found in ipairs(codes()) do
    if found == code then
      return true
    end
  end
  return false
end

local ready = vim.wait(20000, function()
  return #PODCYCLE_REGISTRATIONS > 0 and logged('podcycle: indexed') ~= nil and PODCYCLE_PUBLISHED > 0
end, 50)
local before = codes()

local config = vim.fn.getcwd() .. '/.podcycle.yaml'
local file = io.open(config, 'w')
file:write('ignore: []\n')
file:close()
local client = vim.lsp.get_active_clients()[1]
client.notify('workspace/didChangeWatchedFiles', {
  changes = { { uri = vim.uri_from_fname(config), type = 2 } },
})
local changed = vim.wait(20000, function()
  return has_code('init-container-probe')
end, 50)

local globs = {}
for _, registration in ipairs(PODCYCLE_REGISTRATIONS) do
  table.insert(globs, registration.method)
  for _, watcher in ipairs((registration.registerOptions or {}).watchers or {}) do
    table.insert(globs, watcher.globPattern)
  end
end

local out = io.open(os.getenv('OUT'), 'w')
out:write(vim.fn.json_encode({
  ready = ready,
  registered = globs,
  indexed = logged('podcycle: indexed') or vim.NIL,
  before = before,
  changed = changed,
  after = codes(),
}))
out:close()
vim.cmd('qa!')
