"""cli.py - the commands of python3 labs/plab (see __main__.py)."""

import json

from .util import Fail, say


def load_results(path):
    """The results.json object in PATH; Fail when it is not one."""
    try:
        with open(path) as f:
            r = json.load(f)
    except OSError as e:
        raise Fail("cannot read %s: %s" % (path, e.strerror))
    except ValueError:
        raise Fail("%s is not a pathlab results.json" % path)
    if not isinstance(r, dict) or r.get("pathlab") != 1 or \
            not isinstance(r.get("runs"), list):
        raise Fail("%s is not a pathlab results.json" % path)
    return r


def _draw(what, args):
    """plots|figure RESULTS_JSON OUTDIR: a bad file is a warning and 1."""
    from . import figure, plots
    if len(args) != 2:
        raise Fail("usage: plab %s RESULTS_JSON OUTDIR" % what, 2)
    try:
        r = load_results(args[0])
    except Fail as e:
        plots.warn(str(e))
        return 1
    return (plots if what == "plots" else figure).write(r, args[1])


def cmd_plots(args):
    """plots RESULTS_JSON OUTDIR."""
    return _draw("plots", args)


def cmd_figure(args):
    """figure RESULTS_JSON OUTDIR."""
    return _draw("figure", args)


def cmd_table(args):
    """table RESULTS_JSON [--runs]."""
    from . import table
    if not args or len(args) > 2 or (len(args) == 2 and args[1] != "--runs"):
        raise Fail("usage: plab table RESULTS_JSON [--runs]", 2)
    r = load_results(args[0])
    lines = table.runs_table(r) if len(args) == 2 else table.comparison(r)
    print("\n".join(lines))
    return 0


def cmd_summary(args):
    """summary RESULTS_JSON SIZE: the Markdown summary."""
    from . import markdown
    if len(args) != 2 or not args[1].isdigit():
        raise Fail("usage: plab summary RESULTS_JSON SIZE", 2)
    print(markdown.summary(load_results(args[0]), int(args[1])))
    return 0


def cmd_merge(args):
    """merge RX.json GEN.json [options]."""
    from . import merge
    return merge.main(args)


def cmd_compare(args):
    """compare [OPTIONS]."""
    from . import compare
    return compare.main(args)


def cmd_tradeoffs(args):
    """tradeoffs [--modes JSON] --format json|text FILE."""
    from . import tradeoffs_table
    return tradeoffs_table.main(args)


def cmd_tradeoffs_undo(args):
    """tradeoffs-undo: remove a counting rule left in this namespace."""
    from . import tradeoffs
    return tradeoffs.undo_here()


def cmd_docs(args):
    """docs render|numbers|refresh ..."""
    from . import docs
    return docs.main(args)


def cmd_guide_test(args):
    """guide-test GUIDE.md [TMPDIR]: a guide's commands and claims."""
    from . import guidetest
    return guidetest.main(args)


COMMANDS = {"plots": cmd_plots, "figure": cmd_figure, "table": cmd_table,
            "summary": cmd_summary, "merge": cmd_merge,
            "compare": cmd_compare, "tradeoffs": cmd_tradeoffs,
            "tradeoffs-undo": cmd_tradeoffs_undo,
            "docs": cmd_docs, "guide-test": cmd_guide_test}


def main(argv, doc):
    """Dispatch one command; its exit status."""
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(doc.strip())
        return 0 if argv else 2
    func = COMMANDS.get(argv[0])
    if func is None:
        say("plab: unknown command '%s'" % argv[0], err=True)
        return 2
    try:
        return func(argv[1:])
    except Fail as e:
        say("pathlab: %s" % e if not str(e).startswith(("pathlab", "usage"))
            else str(e), err=True)
        return e.code
    except KeyboardInterrupt:
        return 130
