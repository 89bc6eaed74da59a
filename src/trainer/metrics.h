/* metrics.h: training metrics, as JSON lines (one object per event, for
 * scripts) and as a TensorBoard event file (for humans with TensorBoard).
 *
 * JSON lines: {"event":"step","step":S,"epoch":E,"loss":L,"examples_per_sec":R}
 *             {"event":"eval","step":S,"epoch":E,"test_accuracy":A,"test_loss":L}
 * TensorBoard: DIR/events.out.tfevents.<time>.<host>.imc-train, a TFRecord
 * file of Event protos (first one file_version "brain.Event:2", then one
 * per scalar with wall_time, step and a Summary with one simple_value).
 *
 * Ownership: struct metrics owns its files; metrics_close() flushes and
 * frees (NULL-safe). Either output may be absent (path NULL). */
#ifndef IMC_TRAINER_METRICS_H
#define IMC_TRAINER_METRICS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/diag.h"

struct metrics;

struct metrics *metrics_open(const char *jsonl_path, const char *tb_dir, struct diag *d);
int metrics_close(struct metrics *m, struct diag *d);
void metrics_step(struct metrics *m, uint64_t step, double epoch, double loss,
		  double examples_per_sec);
void metrics_eval(struct metrics *m, uint64_t step, double epoch, double accuracy,
		  double loss);
/* Any other scalar (e.g. "async/staleness_mean"), TensorBoard only: JSON
 * lines writers put such fields in their own records. */
void metrics_scalar(struct metrics *m, uint64_t step, const char *tag, double value);

/* TFRecord/TensorBoard primitives (tensorboard.c), exposed for tests. */
uint32_t tb_crc32c(uint32_t crc, const void *buf, size_t len);
uint32_t tb_masked_crc32c(const void *buf, size_t len);
/* Writes one TFRecord: u64 length, masked crc of length, data, masked crc
 * of data. Returns 0 or -1 (errno). */
int tb_write_record(FILE *fp, const void *data, size_t len);
/* Encodes an Event proto into buf (cap bytes); returns its length or 0 when
 * it does not fit. tag == NULL encodes the file_version event. */
size_t tb_encode_event(uint8_t *buf, size_t cap, double wall_time, int64_t step,
		       const char *tag, float value);

#endif
