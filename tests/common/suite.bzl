"""Declaring a suite of tests from one list, so that no test is named twice."""

visibility(["//tests/..."])

def test_suite_of(name, tests):
    """Declares every test of `tests` and a test_suite `name` of them.

    Args:
      name: the test_suite's name.
      tests: dict of test name -> (test rule or macro, dict of its other attributes).
    """
    for test_name, (rule, kwargs) in tests.items():
        rule(name = test_name, **kwargs)
    native.test_suite(
        name = name,
        tests = [":" + t for t in tests],
    )
