-- Run before the configuration (`--cmd`): counts the diagnostics the server publishes and
-- remembers the last document version they were for, so a script knows when the server has
-- spoken about the current text, even when it has nothing to say.
PODCYCLE_PUBLISHED = 0
PODCYCLE_VERSION = nil
local publish = vim.lsp.handlers['textDocument/publishDiagnostics']
vim.lsp.handlers['textDocument/publishDiagnostics'] = function(err, result, ctx, config)
  PODCYCLE_PUBLISHED = PODCYCLE_PUBLISHED + 1
  PODCYCLE_VERSION = result and result.version
  return publish(err, result, ctx, config)
end
