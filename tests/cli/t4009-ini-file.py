#!/usr/bin/python3
"""t4009-ini-file.py: imc's ini_file against community.general's.

Runs each case (a starting file, the module's arguments) through `imc play`
and compares the resulting file, changed, failed and msg with what
Ansible's module gives: live when ansible-playbook has ini_file (--live),
else with the results recorded from it (t4009-ini-file.golden.json, made
with --record on a machine that has it). Prints TAP.

usage: t4009-ini-file.py IMC WORKDIR GOLDEN [--live | --record]
"""
import json
import os
import shutil
import subprocess
import sys

IMC, BASE, GOLDEN = sys.argv[1:4]
MODE = sys.argv[4] if len(sys.argv) > 4 else ""

CASES = [
 ("set in existing section", "[a]\nx = 1\ny=2\n\n[b]\nz = 3\n", dict(section="a", option="x", value="5")),
 ("same value -> OK", "[a]\nx = 1\n", dict(section="a", option="x", value="1")),
 ("add option", "[a]\nx = 1\n# comment\n\n[b]\n", dict(section="a", option="new", value="v")),
 ("add section", "[a]\nx = 1\n", dict(section="c", option="k", value="v")),
 ("only section", "[a]\nx = 1\n", dict(section="c", allow_no_value=True)),
 ("no trailing newline", "[a]\nx = 1", dict(section="a", option="x", value="1")),
 ("commented option", "[a]\n#x = 1\n", dict(section="a", option="x", value="2")),
 ("duplicates exclusive", "[a]\nx = 1\nx = 2\nx = 3\n", dict(section="a", option="x", value="2")),
 ("values list", "[a]\nx = 1\n", dict(section="a", option="x", values=["1", "2", "2", "3"])),
 ("values non-exclusive", "[a]\nx = 1\nx = 9\n", dict(section="a", option="x", values=["1", "2"], exclusive=False)),
 ("absent option", "[a]\nx = 1\n#x = 2\ny = 3\n", dict(section="a", option="x", state="absent")),
 ("absent value non-excl", "[a]\nx = 1\nx = 2\n", dict(section="a", option="x", values=["2"], state="absent", exclusive=False)),
 ("absent section", "[a]\nx = 1\n[b]\ny = 2\n", dict(section="a", state="absent")),
 ("global option", "top = 1\n[a]\nx = 1\n", dict(section=None, option="top", value="2")),
 ("global add", "[a]\nx = 1\n", dict(section=None, option="g", value="1")),
 ("no_extra_spaces", "[a]\n", dict(section="a", option="x", value="1", no_extra_spaces=True)),
 ("new file", None, dict(section="s", option="o", value="v")),
 ("new file nested dir", None, dict(section="s", option="o", value="v", subdir=True)),
 ("create false", None, dict(section="s", option="o", value="v", create=False)),
 ("empty file", "", dict(section="s", option="o", value="v")),
 ("allow_no_value", "[a]\nx = 1\n", dict(section="a", option="flag", allow_no_value=True)),
 ("missing value", "[a]\n", dict(section="a", option="x")),
 ("option with regex chars", "[a]\nx.y = 1\nxzy = 2\n", dict(section="a", option="x.y", value="3")),
 ("section prefix line", "[a] ; c\nx = 1\n", dict(section="a", option="x", value="4")),
 ("spaces and tabs", "[a]\n  x\t=\t1\n", dict(section="a", option="x", value="1")),
 ("value with spaces", "[a]\n", dict(section="a", option="x", value="a b = c")),
 ("numeric value", "[a]\n", dict(section="a", option="n", value=5)),
 ("absent: no section, an empty file", "", dict(section=None, state="absent")),
 ("absent: no section, then a section", "a=1\n[s]\nb=2\n", dict(section=None, state="absent")),
 ("OnCalendar recipe", "[Unit]\nDescription=x\n\n[Timer]\nOnCalendar=*:00/10\n\n[Install]\nWantedBy=t\n", dict(section="Timer", option="OnCalendar", value="*:00/1")),
]


LOGS = {}  # tool: (program, CompletedProcess), shown when a case differs


def show_log(tool):
    """The exit status and output of tool's run, as TAP comments."""
    if tool not in LOGS:
        return
    prog, proc = LOGS[tool]
    print("# %s exited %d; its output (last 40 lines):" % (prog, proc.returncode))
    lines = (proc.stdout + proc.stderr).splitlines()
    for line in lines[-40:]:
        print("#   " + line)


def run(tool):
    """All the cases in one playbook run by tool; their outcomes."""
    tasks, dirs = [], []
    report = ("{{ {'changed': r.changed, 'failed': r.failed | default(false), "
              "'msg': r.msg | default('')} | to_json }}")
    for idx, (_, content, args) in enumerate(CASES):
        d = os.path.join(BASE, tool, str(idx))
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        a = dict(args)
        sub = a.pop("subdir", False)
        path = os.path.join(d, "x/y/f.ini" if sub else "f.ini")
        if content is not None:
            with open(path, "w") as f:
                f.write(content)
        a["path"] = path
        tasks.append({"ini_file": a, "register": "r", "ignore_errors": True})
        tasks.append({"copy": {"content": report, "dest": d + "/r.json"}})
        dirs.append((d, path))
    pf = os.path.join(BASE, tool + ".yml")
    with open(pf, "w") as f:
        json.dump([{"hosts": "all", "gather_facts": False, "tasks": tasks}], f)
    if tool == "imc":
        cmd = [IMC, "play", "--no-fallback", "-q", pf]
    else:
        cmd = ["ansible-playbook", "-i", "localhost,", "-c", "local", pf]
    proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    LOGS[tool] = (cmd[0], proc)
    outcomes = []
    for d, path in dirs:
        try:
            with open(d + "/r.json") as f:
                r = json.load(f)
        except (OSError, ValueError) as e:
            r = {"error": str(e)}
        out = None
        if os.path.exists(path):
            with open(path) as f:
                out = f.read()
        if "msg" in r:
            r["msg"] = r["msg"].replace(d, "DIR")
        outcomes.append({"result": r, "file": out})
    return outcomes


def main():
    if MODE == "--record":
        golden = run("ansible")
        with open(GOLDEN, "w") as f:
            json.dump(golden, f, indent=1)
            f.write("\n")
        return 0
    with open(GOLDEN) as f:
        golden = json.load(f)
    mine_all = run("imc")
    ref_all = run("ansible") if MODE == "--live" else golden
    print("1..%d" % len(CASES))
    bad = 0
    for i, (name, _, _) in enumerate(CASES):
        mine, ref = mine_all[i], ref_all[i]
        same = mine == ref
        bad += not same
        print("%s %d - ini_file: %s%s" % ("ok" if same else "not ok", i + 1, name,
                                          " (live)" if MODE == "--live" else ""))
        if not same:
            print("#   imc:     %s" % json.dumps(mine))
            print("#   ansible: %s" % json.dumps(ref))
    if bad:
        show_log("imc")
        show_log("ansible")
    return 1 if bad else 0


sys.exit(main())
