-- The load client of bench/api.py, for wrk (LuaJIT). Run one thread per connection
-- (wrk -tN -cN), so each thread's Lua state is one client with state of its own:
--
--   wrk -t50 -c50 -d18s -s bench/wrk_client.lua URL -- moves MATCHES_FILE LOG_FOLDER
--   wrk -t50 -c50 -d18s -s bench/wrk_client.lua URL -- bare  -            LOG_FOLDER
--   wrk -t50 -c50 -d18s -s bench/wrk_client.lua URL -- echo  -            LOG_FOLDER
--   wrk -t50 -c50 -d18s -s bench/wrk_client.lua URL -- write -            LOG_FOLDER
--   wrk -t50 -c50 -d18s -s bench/wrk_client.lua URL -- play  -            LOG_FOLDER
--   wrk -t50 -c50 -d18s -s bench/wrk_client.lua URL -- duties -           LOG_FOLDER
--   wrk -t50 -c50 -d18s -s bench/wrk_client.lua URL -- views MATCHES_FILE LOG_FOLDER
--   wrk -t50 -c50 -d18s -s bench/wrk_client.lua URL -- moves MATCHES_FILE LOG_FOLDER 0.2
--
-- A fourth argument paces each connection: one request every that many seconds, on a
-- fixed schedule (a late answer shortens the next wait, never moves the schedule), so
-- 50 connections at 0.2 s offer 250 requests a second. Without it, or 0, each connection
-- sends its next request as soon as the answer is in (saturation).
-- "bare": GET / again and again. "echo", "write", "play" and "duties": thread i POSTs a
-- small JSON body to /echo/i, /write/i, /play/i or /duties/i (bench/bare_app.py) again
-- and again, so each thread writes a row of its own; to /duties/i with the seat token
-- bench/bare_app.py expects of thread i, as a move run sends its token.
--
-- "views": thread i GETs the view of the match on line i of MATCHES_FILE again and
-- again, with the token of the seat whose turn it was when the match was made.
--
-- "moves": thread i plays both seats of the match on line i of MATCHES_FILE
-- ("id token0 token1 turn"), then of new matches once that one ends.
-- A move costs one POST when the thread knows the mover's hand (each move's answer holds
-- the mover's hand and whose turn is next): a card from that hand, capture left out, and
-- on the 422 of an ambiguous capture one of the choices the problem lists. A GET of the
-- view is needed only when a packet or a deal has emptied the hand it knew.
--
-- Every answer is one line of LOG_FOLDER/thread-i.log: "end latency kind", seconds on
-- CLOCK_MONOTONIC (Python's time.perf_counter on Linux); kind is bare, echo, write, play,
-- duties, move (accepted), ambiguous, view, create, or error-STATUS (any status but 200
-- for bare, echo, write, play, duties and views).

local ffi = require("ffi")
ffi.cdef [[
  typedef struct { long tv_sec; long tv_nsec; } scopa_timespec;
  int clock_gettime(int clock, scopa_timespec *now);
]]
local CLOCK_MONOTONIC = 1
local timespec = ffi.new("scopa_timespec")

local function now()
  ffi.C.clock_gettime(CLOCK_MONOTONIC, timespec)
  return tonumber(timespec.tv_sec) + tonumber(timespec.tv_nsec) * 1e-9
end

local created = 0

function setup(thread)
  thread:set("index", created)
  created = created + 1
end

local mode, log, sent, kind, card, floor_path, floor_headers, pace, next_at
local match_id, tokens, turn, hands, chosen, dead

local JSON = { ["Content-Type"] = "application/json" }
local CREATE = '{"seats":[{"kind":"human"},{"kind":"human"}]}'
local FLOOR_BODY = '{"card":"7D"}'

local function cards(list)
  local found = {}
  for card in string.gmatch(list, '"(%w+)"') do
    found[#found + 1] = card
  end
  return found
end

-- The legal moves of a view or of an illegal-move problem: {card, capture-as-JSON}.
local function legal_moves(body, only_card)
  local moves = {}
  for card, capture in string.gmatch(body, '{"card":"(%w+)","capture":%[(.-)%],"sweep":') do
    if only_card == nil or card == only_card then
      moves[#moves + 1] = { card, capture }
    end
  end
  return moves
end

-- wrk's delay(), before each request; defined only when pacing (init), so that an
-- unpaced run sends at once, as it always did.
local function paced_delay()
  local wait = next_at - now()
  next_at = next_at + pace
  return math.max(0, math.floor(wait * 1000))
end

function init(args)
  mode = args[1]
  log = assert(io.open(args[3] .. "/thread-" .. index .. ".log", "w"))
  math.randomseed(index + 1)
  pace = tonumber(args[4] or "0")
  if pace > 0 then
    delay = paced_delay
    -- Spread over one interval, so the connections do not all send at the same moment.
    next_at = now() + pace * math.random()
  end
  if mode == "echo" or mode == "write" or mode == "play" or mode == "duties" then
    floor_path = "/" .. mode .. "/" .. index
    floor_headers = JSON
    if mode == "duties" then
      floor_headers = {
        ["Content-Type"] = "application/json",
        ["Authorization"] = "Bearer bench-seat-" .. (index % 2),
      }
    end
  elseif mode == "moves" or mode == "views" then
    local line = 0
    for text in io.lines(args[2]) do
      if line == index then
        local id, t0, t1, first = string.match(text, "^(%S+) (%S+) (%S+) (%d+)$")
        match_id, tokens, turn = id, { [0] = t0, [1] = t1 }, tonumber(first)
      end
      line = line + 1
    end
    assert(match_id, "no match for thread " .. index)
    hands = { [0] = {}, [1] = {} }
  end
end

local function auth(seat)
  return { ["Authorization"] = "Bearer " .. tokens[seat] }
end

function request()
  sent = now()
  if mode == "bare" then
    kind = "bare"
    return wrk.format("GET", "/")
  end
  if floor_path ~= nil then
    kind = mode
    return wrk.format("POST", floor_path, floor_headers, FLOOR_BODY)
  end
  if mode == "views" then
    kind = "view"
    return wrk.format("GET", "/v1/matches/" .. match_id, auth(turn))
  end
  if dead then
    kind = "create"
    return wrk.format("POST", "/v1/matches", JSON, CREATE)
  end
  local path = "/v1/matches/" .. match_id
  local headers = auth(turn)
  headers["Content-Type"] = "application/json"
  if chosen ~= nil then
    kind = "move"
    local body = '{"card":"' .. chosen[1] .. '","capture":[' .. chosen[2] .. "]}"
    return wrk.format("POST", path .. "/moves", headers, body)
  end
  local hand = hands[turn]
  if #hand > 0 then
    kind = "move"
    card = hand[math.random(#hand)]
    return wrk.format("POST", path .. "/moves", headers, '{"card":"' .. card .. '"}')
  end
  kind = "view"
  return wrk.format("GET", path, auth(turn))
end

local function played(body)
  hands[turn] = cards(string.match(body, '"hand":%[(.-)%]'))
  if string.match(body, '"status":"(%a+)"') == "finished" then
    dead = true
  else
    turn = tonumber(string.match(body, '"turn":(%d+)'))
  end
end

local function born(body)
  match_id = string.match(body, '"id":"([%w_%-]+)"')
  for seat, token in string.gmatch(body, '{"seat":(%d+),"token":"([%w_%-]+)"}') do
    tokens[tonumber(seat)] = token
  end
  turn = tonumber(string.match(body, '"turn":(%d+)'))
  hands = { [0] = {}, [1] = {} }
  dead = false
end

function response(status, headers, body)
  local ended = now()
  local outcome = kind
  if mode ~= "moves" then
    if status ~= 200 then
      outcome = "error-" .. status
    end
  elseif kind == "create" then
    if status == 201 then
      born(body)
    else
      outcome = "error-" .. status
    end
  elseif kind == "view" then
    local seat = tonumber(string.match(body, '"turn":(%d+)'))
    local moves = legal_moves(body)
    if status ~= 200 then
      outcome = "error-" .. status
    elseif string.match(body, '"status":"(%a+)"') == "finished" then
      dead = true
    elseif seat ~= turn then
      -- Known only after a failure: ask again with the token of the seat to play.
      turn = seat
    elseif #moves > 0 then
      chosen = moves[math.random(#moves)]
    else
      outcome = "error-" .. status
    end
  elseif status == 200 then
    chosen = nil
    played(body)
  elseif status == 422 and chosen == nil then
    -- The card can take in more than one way: the problem lists the choices.
    outcome = "ambiguous"
    local moves = legal_moves(body, card)
    if #moves > 0 then
      chosen = moves[math.random(#moves)]
    else
      outcome = "error-" .. status
    end
  else
    outcome = "error-" .. status
  end
  if outcome:sub(1, 6) == "error-" and mode == "moves" then
    -- Start over from what the server says: the bench reports the run as failed anyway.
    chosen, hands = nil, { [0] = {}, [1] = {} }
  end
  log:write(string.format("%.6f %.6f %s\n", ended, ended - sent, outcome))
end
