"""Run the bridge's unittest modules given on the command line; print the
suite summary scripts/run-tests.sh reads ("N passed, N failed")."""
import sys
import unittest

loader = unittest.TestLoader()
suite = unittest.TestSuite()
for path in sys.argv[1:]:
    suite.addTests(loader.discover(start_dir=path.rsplit("/", 1)[0] or ".",
                                   pattern=path.rsplit("/", 1)[-1]))
result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
failed = len(result.failures) + len(result.errors) + len(result.skipped) + \
    len(result.unexpectedSuccesses)
print(f"{result.testsRun - failed} passed, {failed} failed")
sys.exit(1 if failed or result.testsRun == 0 else 0)
