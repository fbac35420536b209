-- api_fail.lua - failed expectations: every one is listed, the run goes
-- on after a failure, and the exit status is 1.
expect(false, "first failure")
expect_eq(1 + 1, 3, "second failure")
expect_between(5, 1, 10, "this one passes")
expect_near(103, 100, 0.01, "third failure")
expect_lt(2, 1, "fourth failure")
print("still running")
