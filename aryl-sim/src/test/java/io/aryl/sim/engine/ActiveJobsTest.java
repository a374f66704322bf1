package io.aryl.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.aryl.sim.trace.TraceJob;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("ActiveJobs: the unfinished jobs in id order")
class ActiveJobsTest {
  private static SimJob job(String id) {
    return new SimJob(
        new TraceJob(id, 0, 60, 1, ""),
        true,
        JobShape.inelastic(1, 8),
        1,
        SimConfig.defaults(1, 0));
  }

  @Test
  void lists_jobs_by_id_whatever_order_they_come_and_go_in() {
    ActiveJobs active = new ActiveJobs();
    SimJob b = job("b");
    SimJob a = job("a");
    SimJob c = job("c");
    active.add(c);
    active.add(a);
    active.add(b);
    active.remove(a);

    assertThat(active.inIdOrder()).containsExactly(b, c);
    assertThat(active.size()).isEqualTo(2);
  }

  @Test
  void refuses_a_job_twice_and_one_it_does_not_hold() {
    ActiveJobs active = new ActiveJobs();
    active.add(job("a"));

    assertThatIllegalStateException()
        .isThrownBy(() -> active.add(job("a")))
        .withMessageContaining("job a");
    assertThatIllegalStateException()
        .isThrownBy(() -> active.remove(job("a")))
        .withMessageContaining("job a");
    assertThatIllegalStateException()
        .isThrownBy(() -> active.remove(job("z")))
        .withMessageContaining("job z");
  }
}
