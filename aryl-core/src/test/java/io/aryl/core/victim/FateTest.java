package io.aryl.core.victim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("Fate: a job that loses workers shrinks if it keeps its minimum, else is preempted")
class FateTest {
  @ParameterizedTest(name = "{0}: {1} workers, {2} taken, min {3} -> {4}")
  @CsvSource({
    "a job that keeps more than its minimum is shrunk,  6, 2, 2, SHRINK",
    "a job left exactly at its minimum is shrunk,       5, 2, 3, SHRINK",
    "a job that falls below its minimum is preempted,   4, 3, 2, PREEMPT",
    "an inelastic job that loses any worker is preempted, 2, 1, 2, PREEMPT",
    "a job that loses every worker is preempted,        3, 3, 1, PREEMPT",
    "a job above its minimum losing one is shrunk,      3, 1, 1, SHRINK",
  })
  void shrinkOrPreempt(String what, int workers, int removed, int minWorkers, Fate fate) {
    assertThat(Fate.of(workers, removed, minWorkers)).isEqualTo(fate);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "nothing taken                | 4 | 0 | 2 | fate.removed must be within 1..4 (the job's workers), was 0",
        "more taken than it runs      | 4 | 5 | 2 | fate.removed must be within 1..4 (the job's workers), was 5",
        "a minimum below one          | 4 | 1 | 0 | fate.minWorkers must be > 0, was 0",
      })
  void refusesWhatCannotHappen(
      String what, int workers, int removed, int minWorkers, String message) {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> Fate.of(workers, removed, minWorkers))
        .withMessage(message);
  }
}
