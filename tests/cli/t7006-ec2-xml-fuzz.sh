#!/bin/sh
# t7006: a short run of the ec2 reply readers' fuzz harness (fuzz-ec2-xml:
# error documents, instance lists, set values), from the recorded EC2
# replies in ../shared/vectors/ec2 when present and a few of our own.
# Longer runs: tests/fuzz/fuzz-ec2-xml -max_total_time=60 DIR.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/fuzz-lib.sh"
fuzz_require fuzz-ec2-xml

mkdir -p "$TMPD/seeds"
vectors="$top_srcdir/../shared/vectors/ec2"
[ -d "$vectors" ] && find "$vectors" -name '*.xml' -size -64k -exec cp {} "$TMPD/seeds/" \;
cat >"$TMPD/seeds/run" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<RunInstancesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">
  <requestId>r-1</requestId>
  <instancesSet><item><instanceId>i-0abc</instanceId>
    <instanceState><code>0</code><name>pending</name></instanceState>
    <privateIpAddress>10.0.0.5</privateIpAddress><clientToken>tok</clientToken>
    <stateReason><message>Client.UserInitiatedShutdown</message></stateReason>
  </item></instancesSet>
</RunInstancesResponse>
XML
cat >"$TMPD/seeds/error" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<Response><Errors><Error><Code>RequestLimitExceeded</Code><Message>slow down</Message></Error></Errors><RequestID>abc</RequestID></Response>
XML
fuzz_run fuzz-ec2-xml "$TMPD/seeds" 8192
done_testing
