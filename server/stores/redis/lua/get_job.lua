-- uses: common, queue
-- ARGV[3] job id.
require_queue()
return job_answer(require_job(ARGV[3]))
