"""Report noisy max (Dwork and Roth, The Algorithmic Foundations of Differential Privacy, §3.3):
the largest noisy answer itself, two-sided geometric noise, clamped to [low, high].
Ties go to the lowest index; Laplace(b) noise is geometric noise of alpha = e^(-1/b).
Written as a fold over the answers (start, step, finish) and declared stepwise, so the engine
merges the paths that reach the same best index with the same noisy best (one node per index
after each step instead of one run per path); the function itself runs the same fold."""

from pufferfish.models.programs import geometric


def start(queries, alpha, low, high):
    return None, None  # the best index so far and its noisy answer


def step(state, i, q, alpha, low, high):
    best_index, best = state
    value = q + geometric(alpha)
    if best is None or value > best:
        return i, value
    return state


def finish(state, alpha, low, high):
    best_index, best = state
    return max(low, min(best, high))


def rnm3(queries, alpha, low, high):
    state = start(queries, alpha, low, high)
    for i, q in enumerate(queries):
        state = step(state, i, q, alpha, low, high)
    return finish(state, alpha, low, high)


rnm3.stepwise = (start, step, finish)  # the declared fold (pufferfish.models.programs.steps)
