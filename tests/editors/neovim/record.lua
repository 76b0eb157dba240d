-- Run before the configuration (`--cmd`): counts the diagnostics the server publishes and
-- remembers the last document version they were for, so a script knows when the server has
-- spoken about the current text, even when it has nothing to say; keeps what the server logs
-- and the registrations it asks for, each answered by Neovim's own handler.
PODCYCLE_PUBLISHED = 0
PODCYCLE_VERSION = nil
local publish = vim.lsp.handlers['textDocument/publishDiagnostics']
vim.lsp.handlers['textDocument/publishDiagnostics'] = function(err, result, ctx, config)
  PODCYCLE_PUBLISHED = PODCYCLE_PUBLISHED + 1
  PODCYCLE_VERSION = result and result.version
  return publish(err, result, ctx, config)
end
PODCYCLE_LOGS = {}
local log_message = vim.lsp.handlers['window/logMessage']
vim.lsp.handlers['window/logMessage'] = function(err, result, ctx, config)
  table.insert(PODCYCLE_LOGS, result.message)
  return log_message(err, result, ctx, config)
end
PODCYCLE_REGISTRATIONS = {}
local register = vim.lsp.handlers['client/registerCapability']
vim.lsp.handlers['client/registerCapability'] = function(err, result, ctx, config)
  for _, registration in ipairs(result.registrations) do
    table.insert(PODCYCLE_REGISTRATIONS, registration)
  end
  return register(err, result, ctx, config)
end
