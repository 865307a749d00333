# report.jq - the doctor's text report, rendered from its JSON document:
# one line per path with its verdict, the reasons and next steps indented
# under it, then safety, virtualisation, warnings, machine facts,
# interfaces and topology. Every fact ends with its source in [brackets].

def pad($n): tostring | if length < $n then . + (" " * ($n - length)) else . end;

def verdict_label:
  {ready: "READY", lab: "LAB ONLY", unavailable: "NOT AVAILABLE"}[.] // .;

def show:
  if type == "array" then (if length == 0 then "none" else map(tostring) | join("; ") end)
  elif type == "boolean" then (if . then "yes" else "no" end)
  elif . == null or . == "" then "not set or not visible"
  else tostring end;

def is_fact: type == "object" and has("value") and has("source");

# Lines for every fact under an object, labelled by their key path.
def facts($indent):
  def walk($prefix):
    to_entries[]
    | .key as $k | .value
    | if is_fact then
        "\($indent)\(($prefix + $k) | pad(30)) \(.value | show)  [\(.source)]"
      elif type == "object" then walk($prefix + $k + " ")
      else "\($indent)\(($prefix + $k) | pad(30)) \(show)" end;
  walk("");

def section($title): "", $title;

def path_lines:
  to_entries[]
  | .key as $id | .value as $p
  | "",
    "  \($id | pad(7)) \($p.verdict | verdict_label | pad(14)) \($p.summary)",
    ($p.reasons[] | "      - \(.text)  [\(.source)]"),
    ($p.next_steps[] | "      > next (\(.kind)): \(.text)");

# The facts a path carries besides its verdict (devices, driver, CUDA).
def path_details:
  to_entries[]
  | .key as $id
  | (.value | del(.verdict, .summary, .reasons, .next_steps, .interfaces, .nics))
  | select(length > 0)
  | "  \($id)", facts("    ");

"pathlab doctor: which receive paths this machine can run",
(if .sysroot then "(read from the tree \(.sysroot), not from this machine)"
 else "(this machine; each fact ends with where it came from, in [brackets])" end),
section("PATHS  (READY: for real; LAB ONLY: the lab's veth/emulated form; NOT AVAILABLE)"),
(.paths | path_lines),
section("SAFETY"),
"  management interface: \(.safety.management_interfaces.value | if length == 0 then "none found (no default route)" else show end)  [\(.safety.management_interfaces.source)]",
"  \(.safety.rule)",
section("VIRTUALIZATION"),
(.virtualization | facts("  ")),
section("WARNINGS"),
(if (.warnings | length) == 0 then "  none"
 else .warnings[] | "  ! \(.text)  [\(.source)]" end),
section("MACHINE"),
(.machine | to_entries[] | "  \(.key)", (.value | facts("    "))),
section("INTERFACES"),
(.interfaces | to_entries[] | "  \(.key)", (.value | facts("    "))),
section("TOPOLOGY"),
(if (.topology.nics | length) + (.topology.gpus | length) == 0 then "  no PCI NICs or GPUs visible"
 else .topology | to_entries[] | select(.value | length > 0)
   | "  \(.key)", (.value | facts("    ")) end),
section("PATH DETAILS"),
(.paths | path_details)
