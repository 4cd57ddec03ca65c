#!/bin/bash
# progress.sh CMD... --- run one test of `make check` (the LOG_COMPILER of
# every test, see Makefile.am) and report its progress on the terminal.
#
# automake's parallel harness sends a test's output to its .log file and
# shows nothing until the test ends, which for the integration scripts is
# many minutes of silence.  make check opens fd $FSFS7_PROGRESS_FD on
# make's stderr (AM_TESTS_FD_REDIRECT); this wrapper announces the test
# there, forwards one line per finished test case (cmocka's "[ OK ]" /
# "[ FAILED ]", unittest's "... ok" / "FAIL" / "ERROR" / "skipped") with
# the time since the test began and since the previous line, and the exit
# status at the end.  Scripts built on tests/integration/fsfs7test.py write
# their own, richer lines to the fd and say so on stdout ("fsfs7test:
# progress on fd"); then only the start and end lines come from here.
# Everything the test prints still goes to its .log (Python unittest
# scripts get -v so that they name their cases).  Without
# the fd (a test run by hand) the command simply runs.
name=$(basename "${@: -1}")
fd=${FSFS7_PROGRESS_FD:-}
if [ -z "$fd" ] || ! { : >&"$fd"; } 2>/dev/null; then
  exec "$@"
fi
us() { local t=${EPOCHREALTIME/./}; echo "${t#0}"; }
t0=$(us)
last=$t0
say() {   # say MSG: "[hh:mm:ss +elapsed] name: MSG (+since last)"
  local now; now=$(us)
  printf '[%(%H:%M:%S)T +%4ds] %s: %s (%d.%ds)\n' -1 $(( (now - t0) / 1000000 )) \
    "$name" "$1" $(( (now - last) / 1000000 )) $(( (now - last) / 100000 % 10 )) >&"$fd"
  last=$now
}
say "start"
own=
set -o pipefail
# unittest.main() lists test cases only when verbose; fsfs7test.main()
# ignores the flag.
verbose=
case $1:${@: -1} in python*:*.py) verbose=-v ;; esac
"$@" $verbose 2>&1 | while IFS= read -r line || [ -n "$line" ]; do
  printf '%s\n' "$line"
  case $line in
    "fsfs7test: progress on fd"*) own=1 ;;
    "[       OK ] "*) say "${line#*\] } ok" ;;
    "[  FAILED  ] "*) say "${line#*\] } FAILED" ;;
    "[  SKIPPED ] "*) say "${line#*\] } skipped" ;;
    *" ... ok"|*" ... FAIL"|*" ... ERROR"|*" ... skipped"*)
      [ -n "$own" ] || say "${line%% *} ${line##* ... }" ;;
  esac
done
rc=$?
case $rc in
  0) verdict=passed ;; 77) verdict=skipped ;; 99) verdict="harness error (99)" ;;
  *) verdict="FAILED (exit $rc)" ;;
esac
last=$t0
say "end: $verdict"
exit $rc
