"""A Volcano job-order plugin in Python shared by the tests: the most recently created job
first (the opposite of Volcano's default). On tiny-gang its timeline is derived by hand in
test_policies.py."""


class Lifo:
    def __init__(self, arguments=None):
        self.arguments = arguments

    def on_session_open(self, ssn):
        def order(l, r):
            if l.creation_ns == r.creation_ns:
                return 0
            return -1 if l.creation_ns > r.creation_ns else 1
        ssn.add_job_order_fn(order)
