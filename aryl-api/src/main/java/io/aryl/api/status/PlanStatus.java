package io.aryl.api.status;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code plan} of the status: the last round's plan, empty ({@code {}}) before the first ({@link
 * #NONE}; read back, its maps are empty).
 *
 * @param targets each planned application's workers by node, by application id
 * @param changes each application's change the plan made, by application id
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PlanStatus(
    Map<String, Map<String, Integer>> targets, Map<String, ApplicationStatus.Change> changes) {
  /** Before the first round: {@code {}}. */
  public static final PlanStatus NONE = new PlanStatus(null, null);

  public PlanStatus {
    if (targets != null) {
      Map<String, Map<String, Integer>> copy = new LinkedHashMap<>();
      targets.forEach((app, byNode) -> copy.put(app, Copies.map(byNode)));
      targets = Copies.map(copy);
    }
    changes = Copies.mapOrNull(changes);
  }
}
