-- uses: common, queue
require_queue()
settle()
return queue_answer()
