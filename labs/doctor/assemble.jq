# assemble.jq - build the doctor's JSON document (schema.json) from the
# tab-separated records its collectors print, one per line:
#   F path type value source   a fact: {value, source} at path (a/b/c)
#   P path type value          a plain value (verdicts, derived details)
#   R pathid text source       a reason for that path's verdict
#   N pathid kind text         a next step for that path
#   W id text source           a warning
# type: s string, n number, b boolean, a list (';'-separated), j JSON;
# an empty n or b is null. Run as: jq -R -n --arg sysroot DIR -f assemble.jq

def typed($t; $v):
  if $t == "s" then $v
  elif $t == "n" then (if $v == "" then null else ($v | tonumber) end)
  elif $t == "b" then (if $v == "" then null else ($v == "true") end)
  elif $t == "a" then (if $v == "" then [] else ($v | split(";")) end)
  elif $t == "j" then ($v | fromjson)
  else error("unknown value type " + $t) end;

def uniq_in_order: reduce .[] as $x ([]; if any(.[]; . == $x) then . else . + [$x] end);

def skeleton:
  {
    schema_version: 1,
    tool: "pathlab doctor",
    sysroot: (if $sysroot == "" then null else $sysroot end),
    paths: (["socket", "xdp", "afxdp", "dpdk", "verbs", "gpu"]
      | map({key: ., value: {verdict: "unavailable", summary: "",
          reasons: [], next_steps: []}})
      | from_entries),
    safety: {},
    virtualization: {},
    warnings: [],
    machine: {},
    interfaces: {},
    topology: {nics: {}, gpus: {}, relations: {}}
  };

reduce (inputs | select(length > 0) | split("\t")) as $r (skeleton;
  if $r[0] == "F" then
    setpath($r[1] | split("/"); {value: typed($r[2]; $r[3]), source: $r[4]})
  elif $r[0] == "P" then setpath($r[1] | split("/"); typed($r[2]; $r[3]))
  elif $r[0] == "R" then .paths[$r[1]].reasons += [{text: $r[2], source: $r[3]}]
  elif $r[0] == "N" then .paths[$r[1]].next_steps += [{kind: $r[2], text: $r[3]}]
  elif $r[0] == "W" then .warnings += [{id: $r[1], text: $r[2], source: $r[3]}]
  else error("unknown record " + $r[0]) end)
| .paths[] |= (.next_steps |= uniq_in_order | .reasons |= uniq_in_order)
| .warnings |= uniq_in_order
