# docs/local.mk - the documents that are not man pages (each part's
# local.mk adds its own man pages).  Installed with the README, and shipped
# in the tarball: tests read PROBES.md to check the built markers.
dist_doc_DATA += docs/FORMAT.md docs/PROBES.md docs/BENCHMARKS.md docs/FIDELITY.md docs/RELIABILITY.md docs/FLEET.md
# The README's pictures of mtrace-report --html and trace_run --html.
dist_doc_DATA += docs/report.png docs/compare.png
# The README's leak hunt: the program it records.
EXTRA_DIST += docs/examples/wordcount.c
