// Kafka44Golden prints the records of groups4_test.go's kafka44 as Kafka
// 4.4.0 writes them: type, key hex, value hex. Run against the broker's
// jars (scripts/kafka.sh install puts them in ~/.cache/topicsnap/kafka-4.4.0/lib):
//
//	CP="$HOME/.cache/topicsnap/kafka-4.4.0/lib/*"
//	javac -cp "$CP" -d /tmp/golden Kafka44Golden.java && java -cp "$CP:/tmp/golden" Kafka44Golden
import org.apache.kafka.coordinator.group.generated.*;
import org.apache.kafka.common.protocol.*;
import org.apache.kafka.common.Uuid;
import java.util.*;
public class Kafka44Golden {
  static String hex(java.nio.ByteBuffer b) { StringBuilder s = new StringBuilder(); while (b.hasRemaining()) s.append(String.format("%02x", b.get())); return s.toString(); }
  static void p(String name, int type, ApiMessage k, ApiMessage v) {
    System.out.println(name + " " + hex(MessageUtil.toVersionPrefixedByteBuffer((short) type, k)) + " " + hex(MessageUtil.toVersionPrefixedByteBuffer((short) 0, v)));
  }
  public static void main(String[] a) {
    Uuid t1 = Uuid.fromString("AAECAwQFBgcICQoLDA0ODw"); // 00010203-...
    Uuid t2 = Uuid.fromString("EBESExQVFhcYGRobHB0eHw");
    p("share_member", 10, new ShareGroupMemberMetadataKey().setGroupId("tea").setMemberId("m1"),
      new ShareGroupMemberMetadataValue().setRackId(null).setClientId("barista-1").setClientHost("/10.0.0.7").setSubscribedTopicNames(List.of("orders", "refunds")));
    p("share_metadata", 11, new ShareGroupMetadataKey().setGroupId("tea"), new ShareGroupMetadataValue().setEpoch(5).setMetadataHash(-1234567890123L));
    p("share_target_epoch", 12, new ShareGroupTargetAssignmentMetadataKey().setGroupId("tea"), new ShareGroupTargetAssignmentMetadataValue().setAssignmentEpoch(5).setAssignmentTimestamp(1765000000123L));
    p("share_target_member", 13, new ShareGroupTargetAssignmentMemberKey().setGroupId("tea").setMemberId("m1"),
      new ShareGroupTargetAssignmentMemberValue().setTopicPartitions(List.of(new ShareGroupTargetAssignmentMemberValue.TopicPartition().setTopicId(t1).setPartitions(List.of(0, 2)))));
    p("share_current", 14, new ShareGroupCurrentMemberAssignmentKey().setGroupId("tea").setMemberId("m1"),
      new ShareGroupCurrentMemberAssignmentValue().setMemberEpoch(5).setPreviousMemberEpoch(4).setState((byte) 0)
        .setAssignedPartitions(List.of(new ShareGroupCurrentMemberAssignmentValue.TopicPartitions().setTopicId(t1).setPartitions(List.of(0, 1, 2)))));
    p("share_state", 15, new ShareGroupStatePartitionMetadataKey().setGroupId("tea"),
      new ShareGroupStatePartitionMetadataValue()
        .setInitializingTopics(List.of(new ShareGroupStatePartitionMetadataValue.TopicPartitionsInfo().setTopicId(t2).setTopicName("refunds").setPartitions(List.of(3))))
        .setInitializedTopics(List.of(new ShareGroupStatePartitionMetadataValue.TopicPartitionsInfo().setTopicId(t1).setTopicName("orders").setPartitions(List.of(0, 1, 2))))
        .setDeletingTopics(List.of(new ShareGroupStatePartitionMetadataValue.TopicInfo().setTopicId(t2).setTopicName("old"))));
    p("streams_metadata", 17, new StreamsGroupMetadataKey().setGroupId("gale"),
      new StreamsGroupMetadataValue().setEpoch(3).setMetadataHash(42L).setValidatedTopologyEpoch(1)
        .setLastAssignmentConfigs(List.of(new StreamsGroupMetadataValue.LastAssignmentConfig().setKey("num.standby.replicas").setValue("1")))
        .setStoredDescriptionTopologyEpoch(1).setFailedDescriptionTopologyEpoch(-1));
    p("streams_metadata_plain", 17, new StreamsGroupMetadataKey().setGroupId("gale"), new StreamsGroupMetadataValue().setEpoch(3).setMetadataHash(42L));
    p("streams_member", 19, new StreamsGroupMemberMetadataKey().setGroupId("gale").setMemberId("s1"),
      new StreamsGroupMemberMetadataValue().setInstanceId(null).setRackId("rack-a").setClientId("gale-1").setClientHost("/10.0.0.8").setRebalanceTimeoutMs(30000)
        .setTopologyEpoch(1).setProcessId("7a1f").setUserEndpoint(new StreamsGroupMemberMetadataValue.Endpoint().setHost("app-1").setPort(8080))
        .setClientTags(List.of(new StreamsGroupMemberMetadataValue.KeyValue().setKey("zone").setValue("b"))));
    p("streams_member_noendpoint", 19, new StreamsGroupMemberMetadataKey().setGroupId("gale").setMemberId("s1"),
      new StreamsGroupMemberMetadataValue().setClientId("gale-1").setClientHost("/10.0.0.8").setRebalanceTimeoutMs(30000).setTopologyEpoch(1).setProcessId("7a1f").setUserEndpoint(null));
    p("streams_target_epoch", 20, new StreamsGroupTargetAssignmentMetadataKey().setGroupId("gale"), new StreamsGroupTargetAssignmentMetadataValue().setAssignmentEpoch(3));
    p("streams_target_member", 21, new StreamsGroupTargetAssignmentMemberKey().setGroupId("gale").setMemberId("s1"),
      new StreamsGroupTargetAssignmentMemberValue()
        .setActiveTasks(List.of(new StreamsGroupTargetAssignmentMemberValue.TaskIds().setSubtopologyId("0").setPartitions(List.of(0, 1, 2))))
        .setStandbyTasks(List.of(new StreamsGroupTargetAssignmentMemberValue.TaskIds().setSubtopologyId("1").setPartitions(List.of(4))))
        .setWarmupTasks(List.of()));
    p("streams_current", 22, new StreamsGroupCurrentMemberAssignmentKey().setGroupId("gale").setMemberId("s1"),
      new StreamsGroupCurrentMemberAssignmentValue().setMemberEpoch(3).setPreviousMemberEpoch(2).setState((byte) 1)
        .setActiveTasks(List.of(new StreamsGroupCurrentMemberAssignmentValue.TaskIds().setSubtopologyId("0").setPartitions(List.of(0, 1)).setAssignmentEpochs(List.of(2, 3))))
        .setStandbyTasks(List.of()).setWarmupTasks(List.of(new StreamsGroupCurrentMemberAssignmentValue.TaskIds().setSubtopologyId("1").setPartitions(List.of(5))))
        .setActiveTasksPendingRevocation(List.of(new StreamsGroupCurrentMemberAssignmentValue.TaskIds().setSubtopologyId("0").setPartitions(List.of(2))))
        .setStandbyTasksPendingRevocation(List.of()).setWarmupTasksPendingRevocation(List.of()));
    p("streams_topology", 23, new StreamsGroupTopologyKey().setGroupId("gale"),
      new StreamsGroupTopologyValue().setEpoch(1).setSubtopologies(List.of(
        new StreamsGroupTopologyValue.Subtopology().setSubtopologyId("0").setSourceTopics(List.of("gusts")).setSourceTopicRegex(List.of())
          .setStateChangelogTopics(List.of(new StreamsGroupTopologyValue.TopicInfo().setName("gale-store-changelog").setPartitions(0).setReplicationFactor((short) -1)
             .setTopicConfigs(List.of(new StreamsGroupTopologyValue.TopicConfig().setKey("cleanup.policy").setValue("compact")))))
          .setRepartitionSinkTopics(List.of("gale-rep")).setRepartitionSourceTopics(List.of())
          .setCopartitionGroups(List.of()),
        new StreamsGroupTopologyValue.Subtopology().setSubtopologyId("1").setSourceTopics(List.of()).setSourceTopicRegex(List.of("calm-.*"))
          .setStateChangelogTopics(List.of()).setRepartitionSinkTopics(List.of())
          .setRepartitionSourceTopics(List.of(new StreamsGroupTopologyValue.TopicInfo().setName("gale-rep").setPartitions(4).setReplicationFactor((short) 1)))
          .setCopartitionGroups(List.of(new StreamsGroupTopologyValue.CopartitionGroup().setSourceTopics(List.of()).setSourceTopicRegex(List.of((short) 0)).setRepartitionSourceTopics(List.of((short) 0)))))));
    p("regex", 16, new ConsumerGroupRegularExpressionKey().setGroupId("g").setRegularExpression("ord.*"),
      new ConsumerGroupRegularExpressionValue().setTopics(List.of("orders")).setVersion(7L).setTimestamp(1765000000000L));
  }
}
