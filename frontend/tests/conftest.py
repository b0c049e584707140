"""pytest fixtures of the frontend's tests: a seeded random generator."""

import numpy as np
import pytest


@pytest.fixture
def rng(request):
    return np.random.default_rng(abs(hash(request.node.name)) % (2**32))
