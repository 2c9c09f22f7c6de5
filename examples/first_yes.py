"""The program of the how-to "Verify your own mechanism" (``first_yes.json``): the position of the
first person whose answer, with two-sided geometric noise added, reaches 1 ("yes" counts 1, "no"
0), or ``None`` when nobody's does."""

from pufferfish.models.programs import geometric


def first_noisy_yes(answers, alpha):
    for position, answer in enumerate(answers):
        if (1 if answer == "yes" else 0) + geometric(alpha) >= 1:
            return position
    return None
