#!/bin/bash
# One lent-GPU sitting, start to finish, in the background (tools/train/README.md section 4):
# tokenize the carried corpus, pre-train for PT_MIN minutes, pack the pre-training checkpoint
# for the trip home, fine-tune for FT_MIN minutes, export fp16 and split it into parts.
# Start it with setsid so it outlives the call; read $RUN/session.log from later calls.
#   RUN=/tmp/precis-run PT_STEPS=9000 FT_STEPS=3000 setsid bash tools/train/gpu_session.sh &
set -euo pipefail
RUN=${RUN:-/tmp/precis-run}
PT_MIN=${PT_MIN:-11}
FT_MIN=${FT_MIN:-4.5}
CORPUS=${CORPUS:-build-corpus}
WORKERS=${WORKERS:-12}
mkdir -p "$RUN"
exec >>"$RUN/session.log" 2>&1
export PYTHONUNBUFFERED=1
T=tools/train
echo "[$(date +%T)] start: PT_MIN=$PT_MIN FT_MIN=$FT_MIN"
if [ ! -f "$RUN/data/manifest.json" ]; then
  python3 $T/prepare_data.py --spm $T/out/precis24k.model --corpus "$CORPUS" --out "$RUN/data" --workers 16
  echo "[$(date +%T)] data ready"
fi
# PT_STEPS/FT_STEPS fix the schedules (H100, base, batch 32: about 0.09 s/step once warm);
# without them --fit-minutes times steps 200-300 and sets them.
# PT_RESUME=1 continues $RUN/pt/checkpoint-last.pt (a new linear decay at PT_LR).
# PT_LR: 8e-4 collapsed the encoder (every position the same vector, the input ignored);
# 3e-4 with 400 warm-up steps did not. encoder_check.py stops the sitting on a collapse.
PT_SCHED=${PT_STEPS:+--steps $PT_STEPS}
PT_SCHED=${PT_SCHED:---steps 100000 --fit-minutes $PT_MIN}
FT_SCHED=${FT_STEPS:+--steps $FT_STEPS}
FT_SCHED=${FT_SCHED:---steps 100000 --fit-minutes $FT_MIN}
python3 $T/train.py --phase pretrain --data "$RUN/data" --out "$RUN/pt" --preset base ${PT_RESUME:+--resume} \
  $PT_SCHED --max-minutes "$(python3 -c "print($PT_MIN + 0.7)")" \
  --batch-size 32 --lr "${PT_LR:-3e-4}" --warmup 400 --num-workers "$WORKERS" \
  --log-every 50 --eval-every 500 --eval-batches 10 --save-every 1000
echo "[$(date +%T)] pre-training done"
python3 $T/encoder_check.py "$RUN/pt/checkpoint-last.pt" --corpus "$CORPUS"
python3 $T/resume_pack.py pack "$RUN/pt/checkpoint-last.pt" "$RUN/return/pt"
cp "$RUN/pt/log.csv" "$RUN/return/pt/pretrain-log.csv"
echo "[$(date +%T)] pre-training checkpoint packed"

python3 $T/train.py --phase finetune --data "$RUN/data" --out "$RUN/ft" --init "$RUN/pt/checkpoint-last.pt" \
  $FT_SCHED --max-minutes "$(python3 -c "print($FT_MIN + 0.7)")" \
  --batch-size 32 --lr 1e-4 --warmup 200 --num-workers "$WORKERS" \
  --log-every 50 --eval-every 500 --eval-batches 10 --save-every 1000
echo "[$(date +%T)] fine-tuning done"
python3 $T/export_hf.py --ckpt "$RUN/ft/checkpoint-last.pt" --spm $T/out/precis24k.model --out "$RUN/export"
mkdir -p "$RUN/return/model"
(cd "$RUN/export" && sha256sum model.safetensors && split -b 15M -d -a 2 model.safetensors "$RUN/return/model/model.part-")
cp "$RUN/export"/*.json "$RUN/ft/log.csv" "$RUN/return/model/"
(cd "$RUN/export" && sha256sum model.safetensors > "$RUN/return/model/model.sha256")
ls -la "$RUN/return"/*
echo "[$(date +%T)] DONE"
