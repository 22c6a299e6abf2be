"""Schemathesis checks for pksd's fuzz run (loaded through SCHEMATHESIS_HOOKS by test/fuzz/schemathesis.test.ts)."""

import schemathesis
from schemathesis.specs.openapi.checks import content_type_conformance


@schemathesis.check
def content_type_of_bodies(ctx, response, case):
    """`content_type_conformance` for answers that have a body.

    Swagger 2.0 names media types per operation, not per response, and a 204 or a bodiless redirect has no
    Content-Type (RFC 9110 §8.3, §15.3.5), so those are not held to the operation's `produces`.
    """
    if response.status_code == 204 or not response.content:
        return None
    return content_type_conformance(ctx, response, case)
