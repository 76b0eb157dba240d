-- A minimal Neovim configuration that attaches `podcycle lsp` to YAML and JSON buffers, in the
-- API Neovim 0.7 has (`vim.lsp.start` needs 0.8). The end-to-end test runs Neovim with it;
-- $PODCYCLE names the binary (default: `podcycle` on PATH).
vim.cmd('filetype on')

local client_id = nil

local function attach(args)
  if client_id == nil then
    local capabilities = vim.lsp.protocol.make_client_capabilities()
    if os.getenv('PODCYCLE_WATCH') then
      -- Newer Neovim versions watch the files a server asks for (by default on macOS and
      -- Windows since 0.10); 0.7 does not, so the test that sets $PODCYCLE_WATCH announces it
      -- and reports the change it makes on disk itself.
      capabilities.workspace.didChangeWatchedFiles = { dynamicRegistration = true }
    end
    client_id = vim.lsp.start_client({
      name = 'podcycle',
      cmd = { os.getenv('PODCYCLE') or 'podcycle', 'lsp' },
      root_dir = vim.fn.getcwd(),
      capabilities = capabilities,
    })
  end
  vim.lsp.buf_attach_client(args.buf, client_id)
end

vim.api.nvim_create_autocmd('FileType', { pattern = { 'yaml', 'json' }, callback = attach })
