-- Drives `harn lsp` from Neovim's built-in LSP client (Neovim 0.7+ API:
-- vim.lsp.start_client / buf_attach_client / buf_request_sync), headless.
-- Environment: HARN_LSP_CMD (the server command, space-separated),
-- HARN_FILE (the file to open), HARN_OUT (where to write the answers).
local out = {}
local function put(key, value)
  table.insert(out, key .. ": " .. tostring(value):gsub("\n", "\\n"))
end

local function finish()
  local f = assert(io.open(os.getenv("HARN_OUT"), "w"))
  f:write(table.concat(out, "\n") .. "\n")
  f:close()
end

local ok, err = pcall(function()
  local file = os.getenv("HARN_FILE")
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  local cmd = vim.split(os.getenv("HARN_LSP_CMD"), " ", { trimempty = true })
  local client_id = vim.lsp.start_client({
    name = "harn",
    cmd = cmd,
    root_dir = vim.fn.fnamemodify(file, ":h"),
  })
  assert(client_id, "the client did not start")
  vim.lsp.buf_attach_client(bufnr, client_id)
  put("attached", vim.wait(20000, function()
    local c = vim.lsp.get_client_by_id(client_id)
    return c ~= nil and c.initialized
  end, 20))

  -- diagnostics arrive after didOpen
  vim.wait(20000, function() return #vim.diagnostic.get(bufnr) > 0 end, 20)
  local diags = vim.diagnostic.get(bufnr)
  table.sort(diags, function(a, b) return a.lnum < b.lnum or (a.lnum == b.lnum and a.col < b.col) end)
  for _, d in ipairs(diags) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or ""
    put("diagnostic", d.lnum .. ":" .. d.col .. " [" .. code .. "] " .. d.message)
  end

  local uri = vim.uri_from_bufnr(bufnr)
  local function request(method, params)
    local res = vim.lsp.buf_request_sync(bufnr, method, params, 20000)
    assert(res and res[client_id], "no answer to " .. method)
    assert(not res[client_id].err, method .. ": " .. vim.inspect(res[client_id].err))
    return res[client_id].result
  end
  local function at(line, character)
    return { textDocument = { uri = uri }, position = { line = line, character = character } }
  end

  -- completion inside `twice`, on an empty line of its body (line 9, col 2)
  local comp = request("textDocument/completion", at(9, 2))
  local items = comp.items or comp
  local labels = {}
  for _, it in ipairs(items) do labels[it.label] = true end
  for _, want in ipairs({ "x", "twice", "add", "println" }) do
    put("completion " .. want, labels[want] == true)
  end

  -- hover on the call of the imported `add` (line 10: `  return add(x, x)`)
  local hover = request("textDocument/hover", at(10, 10))
  put("hover", hover.contents.value)

  -- definition of `add`: lib.harn
  local def = request("textDocument/definition", at(10, 10))
  if def[1] then def = def[1] end
  put("definition", vim.fn.fnamemodify(vim.uri_to_fname(def.uri), ":t") .. ":" .. def.range.start.line .. ":" .. def.range.start.character)

  -- formatting: apply the edits and print the buffer
  local edits = request("textDocument/formatting", { textDocument = { uri = uri }, options = { tabSize = 2, insertSpaces = true } })
  vim.lsp.util.apply_text_edits(edits, bufnr, "utf-16")
  put("formatted", table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n"))

  -- rename a struct from a file that uses it (HARN_RENAME_FILE, at
  -- HARN_RENAME_AT "line:character", to HARN_RENAME_TO): apply the
  -- workspace edit, which spans two files, and save every buffer
  local rename_file = os.getenv("HARN_RENAME_FILE")
  if rename_file then
    vim.cmd("edit " .. vim.fn.fnameescape(rename_file))
    local rbuf = vim.api.nvim_get_current_buf()
    vim.lsp.buf_attach_client(rbuf, client_id)
    local line, character = os.getenv("HARN_RENAME_AT"):match("(%d+):(%d+)")
    local res = vim.lsp.buf_request_sync(rbuf, "textDocument/rename", {
      textDocument = { uri = vim.uri_from_bufnr(rbuf) },
      position = { line = tonumber(line), character = tonumber(character) },
      newName = os.getenv("HARN_RENAME_TO"),
    }, 20000)
    assert(res and res[client_id], "no answer to textDocument/rename")
    assert(not res[client_id].err, "textDocument/rename: " .. vim.inspect(res[client_id].err))
    local files = 0
    for _ in pairs(res[client_id].result.changes or {}) do files = files + 1 end
    put("renamed files", files)
    vim.lsp.util.apply_workspace_edit(res[client_id].result, "utf-16")
    vim.cmd("silent wall")
  end

  vim.lsp.stop_client(client_id)
  put("stopped", vim.wait(10000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 20))
end)
if not ok then put("error", err) end
finish()
vim.cmd("qa!")
