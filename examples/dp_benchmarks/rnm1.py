"""Report noisy max (Dwork and Roth, The Algorithmic Foundations of Differential Privacy, §3.3):
the index of the largest noisy answer, two-sided geometric noise.
Ties go to the lowest index; Laplace(b) noise is geometric noise of alpha = e^(-1/b).
Written as a fold over the answers (start, step, finish) and declared stepwise, so the engine
merges the paths that reach the same best index with the same noisy best (one node per index
after each step instead of one run per path); the function itself runs the same fold."""

from pufferfish.models.programs import geometric


def start(queries, alpha):
    return None, None  # the best index so far and its noisy answer


def step(state, i, q, alpha):
    best_index, best = state
    value = q + geometric(alpha)
    if best is None or value > best:
        return i, value
    return state


def finish(state, alpha):
    best_index, best = state
    return best_index


def rnm1(queries, alpha):
    state = start(queries, alpha)
    for i, q in enumerate(queries):
        state = step(state, i, q, alpha)
    return finish(state, alpha)


rnm1.stepwise = (start, step, finish)  # the declared fold (pufferfish.models.programs.steps)
