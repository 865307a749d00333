"""python3 labs/plab COMMAND ... - the lab's orchestration in one place.

  compare [OPTIONS]             `pathlab compare` (see its --help)
  plots RESULTS_JSON OUTDIR     rate, latency, cpu as SVG and PNG
  figure RESULTS_JSON OUTDIR    the interactive figure with results.js
  table RESULTS_JSON [--runs]   the comparison table (--runs: every run)
  summary RESULTS_JSON SIZE     the Markdown summary of one frame size
  merge RX.json GEN.json ...    one run object of a receiver's and the
                                generator's JSON
  tradeoffs [--modes JSON] --format json|text FILE
                                the trade-off table of a --tradeoffs run
  tradeoffs-undo                remove a counting rule left here
  docs render|numbers|refresh   the measured blocks of the Markdown
  guide-test GUIDE.md [TMPDIR]  run a guide's commands as written and check
                                what it says they show (needs root)
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

from plab import cli  # noqa: E402  (after the path is set)

if __name__ == "__main__":
    sys.exit(cli.main(sys.argv[1:], __doc__))
