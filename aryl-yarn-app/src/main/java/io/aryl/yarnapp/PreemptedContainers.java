package io.aryl.yarnapp;

import java.util.HashSet;
import java.util.Set;
import org.apache.hadoop.yarn.api.records.PreemptionContract;
import org.apache.hadoop.yarn.api.records.PreemptionMessage;

/** The containers a PreemptionMessage names. */
public final class PreemptedContainers {
  private PreemptedContainers() {}

  /**
   * The ids of the containers the message names, in its strict contract (they will be killed) and
   * its negotiable one (the RM wants their resources back) alike: an AM of Aryl gives up either.
   */
  public static Set<String> of(PreemptionMessage message) {
    Set<String> ids = new HashSet<>();
    if (message.getStrictContract() != null) {
      message.getStrictContract().getContainers().forEach(c -> ids.add(c.getId().toString()));
    }
    PreemptionContract contract = message.getContract();
    if (contract != null) {
      contract.getContainers().forEach(c -> ids.add(c.getId().toString()));
    }
    return ids;
  }
}
